#!/bin/sh
# The default-solver table (issues 47 and 48): unmodified PETSc tutorials, each with its own default
# solver, the factorizations a user names and multigrid, for aijcusparse, diag, pcsr and cihybrid in the same
# run, one rank and one GPU (and 2 ranks sharing it for the default block Jacobi), VECCUDA vectors.
# From -log_view: KSPSolve and PCSetUp (PCSetUp is mostly inside KSPSolve: not to be added), the
# whole process ("Time (sec)"), the copies between host and device of KSPSolve, and the iterations
# from -ksp_converged_reason (summed over the solves).
# Results: $OUT/default_solvers.csv (one line a run) and each run's output in $OUT/default_solvers/.
# GPUMATS_DEFAULT_CASES picks rows (all by default): by name (ksp_ex45), name:config (ksp_ex45:icc)
# or name:config:ranks (ksp_ex45:default:2); GPUMATS_DEFAULT_TYPES the types of
# the rows that do not name their own (multigrid, GAMG and the CI rows do).
# Needs the build of tools/device-test.sh (the tutorials) and its PETSc in the environment.
# Usage: benchmarks/scripts/device-bench-default-solvers.sh <build dir> <output dir>
set -u
B=$1 OUT=$2
F=${GPUMATS_FCIDUMP:-.device/fcidump}
MPIEXEC=${MPIEXEC:-$PETSC_DIR/bin/mpiexec}
LIMIT=${GPUMATS_DEFAULT_TIMEOUT:-120}
mkdir -p "$OUT/default_solvers"
csv=$OUT/default_solvers.csv
[ -f "$csv" ] || echo "case,config,ranks,type,solves,iterations,kspsolve_s,pcsetup_s,whole_s,to_gpu,to_cpu,status" > "$csv"
status=0
# case NAME PROGRAM TYPEOPTION RANKS CONFIG ARGS...: one row, every type (PROGRAM in the build)
case_() {
  name=$1 program=$2 typeoption=$3 ranks=$4 config=$5
  shift 5
  case " ${GPUMATS_DEFAULT_CASES:-$name} " in *" $name "* | *" $name:$config "* | *" $name:$config:$ranks "*) ;; *) return 0 ;; esac
  [ -x "$B/$program" ] || { echo "$name: $B/$program not built" >&2; status=1; return 0; }
  for type in ${row_types:-${GPUMATS_DEFAULT_TYPES:-aijcusparse diag pcsr cihybrid}}; do
    load=""
    [ "$type" = aijcusparse ] || load="-dll_append $B/libgpumats.so"
    log=$OUT/default_solvers/$name-$config-np$ranks-$type.txt
    vec="-vec_type cuda"
    [ "$typeoption" = -dm_mat_type ] && vec="-dm_vec_type cuda"
    # shellcheck disable=SC2086
    timeout "$LIMIT" "$MPIEXEC" -n "$ranks" "$B/$program" "$@" $load "$typeoption" "$type" $vec -ksp_converged_reason -log_view -log_view_gpu_time > "$log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    awk -v name="$name" -v config="$config" -v ranks="$ranks" -v type="$type" -v rc="$rc" '
      /Linear solve (converged|did not converge)/ { solves++; for (i = 1; i <= NF; i++) if ($i == "iterations") its += $(i + 1) }
      /^Time \(sec\):/ { whole = $3 }
      /^KSPSolve / { ksp = $4; togpu = $(NF - 4); tocpu = $(NF - 2) }
      /^PCSetUp / { pc = $4 }
      END { printf "%s,%s,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s\n", name, config, ranks, type, solves, its, ksp, pc, whole, togpu, tocpu, rc == 0 ? "ok" : "failed " rc }' "$log" >> "$csv"
    tail -1 "$csv"
  done
}
# 3-D Poisson (7 points), 2-D Poisson (5), Bratu (5), driven cavity (4 unknowns a point), the heat
# equation with implicit steps, 3-D elasticity (Q1, 3 unknowns a node)
case_ ksp_ex45 tests/tutorials/ksp_ex45 -dm_mat_type 1 default -da_grid_x 129 -da_grid_y 129 -da_grid_z 129
case_ ksp_ex45 tests/tutorials/ksp_ex45 -dm_mat_type 1 icc -da_grid_x 129 -da_grid_y 129 -da_grid_z 129 -pc_type icc
case_ ksp_ex45 tests/tutorials/ksp_ex45 -dm_mat_type 1 lu -da_grid_x 33 -da_grid_y 33 -da_grid_z 33 -pc_type lu
case_ ksp_ex45 tests/tutorials/ksp_ex45 -dm_mat_type 2 default -da_grid_x 129 -da_grid_y 129 -da_grid_z 129
case_ ksp_ex50 tests/tutorials/ksp_ex50 -dm_mat_type 1 default -da_grid_x 1025 -da_grid_y 1025
case_ ksp_ex50 tests/tutorials/ksp_ex50 -dm_mat_type 1 icc -da_grid_x 1025 -da_grid_y 1025 -pc_type icc
case_ ksp_ex50 tests/tutorials/ksp_ex50 -dm_mat_type 1 lu -da_grid_x 257 -da_grid_y 257 -pc_type lu
case_ ksp_ex50 tests/tutorials/ksp_ex50 -dm_mat_type 2 default -da_grid_x 1025 -da_grid_y 1025
case_ snes_ex5 tests/tutorials/snes_ex5 -dm_mat_type 1 default -da_grid_x 513 -da_grid_y 513
case_ snes_ex5 tests/tutorials/snes_ex5 -dm_mat_type 1 lu -da_grid_x 129 -da_grid_y 129 -pc_type lu
case_ snes_ex5 tests/tutorials/snes_ex5 -dm_mat_type 2 default -da_grid_x 513 -da_grid_y 513
case_ snes_ex19 tests/tutorials/snes_ex19 -dm_mat_type 1 default -da_grid_x 129 -da_grid_y 129
case_ snes_ex19 tests/tutorials/snes_ex19 -dm_mat_type 1 lu -da_grid_x 65 -da_grid_y 65 -pc_type lu
case_ snes_ex19 tests/tutorials/snes_ex19 -dm_mat_type 2 default -da_grid_x 129 -da_grid_y 129
case_ ts_ex13 tests/tutorials/ts_ex13 -dm_mat_type 1 default -da_grid_x 513 -da_grid_y 513 -ts_max_steps 10
case_ ts_ex13 tests/tutorials/ts_ex13 -dm_mat_type 2 default -da_grid_x 513 -da_grid_y 513 -ts_max_steps 10
case_ ksp_ex56 tests/tutorials/ksp_ex56 -mat_type 1 default -ne 39
case_ ksp_ex56 tests/tutorials/ksp_ex56 -mat_type 1 icc -ne 39 -pc_type icc
# multigrid (issue 48): the names that keep a DMDA's grid transfers of the type (aijdiag: diag
# operators, pcsr transfers), default Chebyshev/SOR and Chebyshev/Jacobi smoothing; GAMG
row_types="aijcusparse aijdiag aijpcsr aijcihybrid"
case_ ksp_ex45 tests/tutorials/ksp_ex45 -dm_mat_type 1 mg -da_grid_x 257 -da_grid_y 257 -da_grid_z 257 -pc_type mg -pc_mg_levels 5
case_ ksp_ex45 tests/tutorials/ksp_ex45 -dm_mat_type 1 mg-jacobi -da_grid_x 257 -da_grid_y 257 -da_grid_z 257 -pc_type mg -pc_mg_levels 5 -mg_levels_pc_type jacobi
case_ ksp_ex50 tests/tutorials/ksp_ex50 -dm_mat_type 1 mg -da_grid_x 2049 -da_grid_y 2049 -pc_type mg -pc_mg_levels 5
case_ ksp_ex50 tests/tutorials/ksp_ex50 -dm_mat_type 1 mg-jacobi -da_grid_x 2049 -da_grid_y 2049 -pc_type mg -pc_mg_levels 5 -mg_levels_pc_type jacobi
case_ snes_ex19 tests/tutorials/snes_ex19 -dm_mat_type 1 mg -da_grid_x 65 -da_grid_y 65 -da_refine 2 -pc_type mg
row_types="aijcusparse diag pcsr cihybrid"
case_ ksp_ex45 tests/tutorials/ksp_ex45 -dm_mat_type 1 gamg -da_grid_x 129 -da_grid_y 129 -da_grid_z 129 -pc_type gamg
case_ ksp_ex56 tests/tutorials/ksp_ex56 -mat_type 1 gamg -ne 39 -pc_type gamg
row_types=""
# the CI Hamiltonian (N2/STO-3G, all determinants; not diag's: its nonzeros are on most diagonals):
# its default Krylov-Schur, and shift-and-invert (LU of H - sigma I) for the lowest states
row_types="aijcusparse pcsr cihybrid"
case_ ci_n2 examples/ci_eigen -mat_type 1 default -fcidump "$F/N2.STO3G.FCIDUMP"
case_ ci_n2 examples/ci_eigen -mat_type 1 sinvert -fcidump "$F/N2.STO3G.FCIDUMP" -st_type sinvert -eps_target -108
row_types=""
exit $status
