/* Sparse products of diag matrices that go through AIJ: a diag operand (seqdiag or
   mpidiag) is copied to AIJ and PETSc's AIJ product does the work; C is AIJ.
     - seqdiag x seqaij, seqaij x seqdiag (AB, AtB, ABt), PtAP and RARt with a seqdiag A
       and a seqaij P (Galerkin coarse operators); the same with aijcusparse and pcsr (the copy
       takes the AIJ operand's type, so that type's product runs: a pcsr P is what a rectangular
       diag matrix too spread for diag becomes, diag_rectangular.c);
     - mpidiag x mpidiag, mpidiag x mpiaij, mpiaij x mpidiag, PtAP / RARt with an mpidiag A:
       the products of PETSc's MPIAIJ, which fetch the rows of B that each process needs.
   C has the AIJ operand's type (seqaij, mpiaij, aijcusparse), or AIJ when both operands are diag.
   Why AIJ: the product of a banded or structured-sparse matrix with a general sparse one
   is general sparse (AIJ's own format); and on several processes MPIAIJ's products already
   gather the remote rows of B.  Two seqdiag matrices multiply in diag_product.c instead.

   The numeric phase refreshes the AIJ copy of each diag operand (its values; with a new
   pattern, the whole product again, said by -info), runs the AIJ product's numeric phase
   and copies its values into C.  C keeps the pattern of the first product; after a pattern
   change C holds the union of the old and new patterns (old entries become zeros). */
#include "diag/diag_impl.h"
#include <string.h>

typedef struct {
  Mat              A, B;             /* the operands as AIJ (a diag operand's copy, or the AIJ operand itself, referenced) */
  PetscBool        copy_a, copy_b;   /* A, B are copies of diag operands */
  PetscObjectState nzstate_a, nzstate_b;
  Mat              inner;            /* the AIJ product */
  PetscBool        union_pattern;    /* C's pattern is a superset of inner's (after a pattern change) */
  char             type[64];         /* of the copies and of C */
} DiagAIJProduct;

static PetscErrorCode DiagAIJProductDestroy(void *arg)
{
  DiagAIJProduct *p = (DiagAIJProduct *)GpuMatsProductCtx(arg);

  PetscFunctionBegin;
  PetscCall(MatDestroy(&p->A));
  PetscCall(MatDestroy(&p->B));
  PetscCall(MatDestroy(&p->inner));
  PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiagIsDiag(Mat M, PetscBool *isdiag)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)M, isdiag, MATSEQDIAG, MATMPIDIAG, ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M as AIJ of type 'type': a new copy of a diag matrix, else M itself (referenced) */
static PetscErrorCode DiagAsAIJ(Mat M, MatType type, Mat *aij, PetscBool *copied)
{
  PetscFunctionBegin;
  PetscCall(DiagIsDiag(M, copied));
  if (*copied) PetscCall(MatConvert(M, type, MAT_INITIAL_MATRIX, aij));
  else {
    PetscCall(PetscObjectReference((PetscObject)M));
    *aij = M;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The AIJ copies and the AIJ product (symbolic and numeric) from the current operands */
static PetscErrorCode DiagAIJProductSetUp(Mat C, DiagAIJProduct *p)
{
  Mat_Product *product = C->product;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&p->A));
  PetscCall(MatDestroy(&p->B));
  PetscCall(MatDestroy(&p->inner));
  { /* the copies take the AIJ operand's type (seqaijcusparse with seqaijcusparse, ...), else AIJ */
    PetscBool diag_a, diag_b;
    MatType   type = MATAIJ;

    PetscCall(DiagIsDiag(product->A, &diag_a));
    PetscCall(DiagIsDiag(product->B, &diag_b));
    if (!diag_a) PetscCall(MatGetType(product->A, &type));
    else if (!diag_b) PetscCall(MatGetType(product->B, &type));
    PetscCall(PetscStrncpy(p->type, type, sizeof(p->type)));
    PetscCall(DiagAsAIJ(product->A, type, &p->A, &p->copy_a));
    PetscCall(DiagAsAIJ(product->B, type, &p->B, &p->copy_b));
  }
  p->nzstate_a = product->A->nonzerostate;
  p->nzstate_b = product->B->nonzerostate;
  PetscCall(MatProductCreate(p->A, p->B, NULL, &p->inner));
  PetscCall(MatProductSetType(p->inner, product->type));
  PetscCall(MatProductSetFill(p->inner, product->fill));
  PetscCall(MatProductSetFromOptions(p->inner));
  PetscCheck(p->inner->ops->productsymbolic, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "MatProduct %s of %s and %s through AIJ: PETSc's %s and %s have no such product", MatProductTypes[product->type], ((PetscObject)product->A)->type_name, ((PetscObject)product->B)->type_name, ((PetscObject)p->A)->type_name, ((PetscObject)p->B)->type_name);
  PetscCall(MatProductSymbolic(p->inner));
  PetscCall(MatProductNumeric(p->inner));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C (the copies' AIJ type, the layout of inner) with the entries of inner: exact preallocation from its rows */
static PetscErrorCode DiagAIJFillFrom(Mat C, Mat inner, MatType type, PetscBool first)
{
  PetscInt rstart, rend, cstart, cend, *dnz = NULL, *onz = NULL;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(inner, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(inner, &cstart, &cend));
  if (first) {
    PetscCall(MatSetSizes(C, inner->rmap->n, inner->cmap->n, inner->rmap->N, inner->cmap->N));
    PetscCall(MatSetType(C, type));
    PetscCall(PetscCalloc2(rend - rstart + 1, &dnz, rend - rstart + 1, &onz));
    for (PetscInt i = rstart; i < rend; i++) {
      PetscInt        nz;
      const PetscInt *cols;

      PetscCall(MatGetRow(inner, i, &nz, &cols, NULL));
      for (PetscInt q = 0; q < nz; q++) {
        if (cols[q] >= cstart && cols[q] < cend) dnz[i - rstart]++;
        else onz[i - rstart]++;
      }
      PetscCall(MatRestoreRow(inner, i, &nz, &cols, NULL));
    }
    PetscCall(MatXAIJSetPreallocation(C, 1, dnz, onz, NULL, NULL)); /* counts of scalar rows */
    PetscCall(MatSetBlockSizesFromMats(C, inner, inner)); /* then inner's: GAMG reads a coarse operator's unknowns a node there */
    PetscCall(PetscFree2(dnz, onz));
  } else {
    PetscCall(MatSetOption(C, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatZeroEntries(C));
  }
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt           nz;
    const PetscInt    *cols;
    const PetscScalar *vals;

    PetscCall(MatGetRow(inner, i, &nz, &cols, &vals));
    PetscCall(MatSetValues(C, 1, &i, nz, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(inner, i, &nz, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Do two sequential AIJ matrices have the same pattern? */
static PetscErrorCode DiagSeqAIJSamePattern(Mat X, Mat Y, PetscBool *same)
{
  const PetscInt *xi, *xj, *yi, *yj;
  PetscInt        mx, my;
  PetscBool       dx, dy;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(X, 0, PETSC_FALSE, PETSC_FALSE, &mx, &xi, &xj, &dx));
  PetscCall(MatGetRowIJ(Y, 0, PETSC_FALSE, PETSC_FALSE, &my, &yi, &yj, &dy));
  PetscCheck(dx && dy, PETSC_COMM_SELF, PETSC_ERR_SUP, "diag product through AIJ: cannot read the rows of an AIJ copy");
  *same = (PetscBool)(mx == my && X->cmap->n == Y->cmap->n);
  if (*same) *same = (PetscBool)!memcmp(xi, yi, sizeof(PetscInt) * (size_t)(mx + 1));
  if (*same) *same = (PetscBool)!memcmp(xj, yj, sizeof(PetscInt) * (size_t)(xi[mx] - xi[0]));
  PetscCall(MatRestoreRowIJ(X, 0, PETSC_FALSE, PETSC_FALSE, &mx, &xi, &xj, &dx));
  PetscCall(MatRestoreRowIJ(Y, 0, PETSC_FALSE, PETSC_FALSE, &my, &yi, &yj, &dy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Do two AIJ matrices (seq or MPI, the same layout) have the same pattern?  Collective. */
static PetscErrorCode DiagAIJSamePattern(Mat X, Mat Y, PetscBool *same)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)X), &size));
  if (size == 1) PetscCall(DiagSeqAIJSamePattern(X, Y, same));
  else {
    Mat             xd, xo, yd, yo;
    const PetscInt *gx, *gy;
    PetscBool       local, sd = PETSC_FALSE, so = PETSC_FALSE;

    PetscCall(MatMPIAIJGetSeqAIJ(X, &xd, &xo, &gx));
    PetscCall(MatMPIAIJGetSeqAIJ(Y, &yd, &yo, &gy));
    local = (PetscBool)(xo->cmap->n == yo->cmap->n && !memcmp(gx, gy, sizeof(PetscInt) * (size_t)xo->cmap->n));
    if (local) PetscCall(DiagSeqAIJSamePattern(xd, yd, &sd));
    if (local && sd) PetscCall(DiagSeqAIJSamePattern(xo, yo, &so));
    local = (PetscBool)(local && sd && so);
    PetscCall(MPIU_Allreduce(&local, same, 1, GPUMATS_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)X)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The AIJ copy of a diag operand with its current values; *changed when its pattern is not the copy's */
static PetscErrorCode DiagAIJRefresh(Mat M, MatType type, Mat copy, PetscBool *changed)
{
  Mat       fresh;
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(MatConvert(M, type, MAT_INITIAL_MATRIX, &fresh));
  PetscCall(DiagAIJSamePattern(fresh, copy, &same));
  if (same) PetscCall(MatCopy(fresh, copy, SAME_NONZERO_PATTERN));
  *changed = (PetscBool)!same;
  PetscCall(MatDestroy(&fresh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_Diag_ThroughAIJ(Mat C)
{
  Mat_Product    *product = C->product;
  DiagAIJProduct *p       = (DiagAIJProduct *)product->data;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  {
    PetscBool changed_a = PETSC_FALSE, changed_b = PETSC_FALSE;

    /* a diag operand's pattern is compared with its copy's (a MatHeaderReplace keeps the nonzerostate); an AIJ one's by its nonzerostate */
    if (p->copy_a) PetscCall(DiagAIJRefresh(product->A, p->type, p->A, &changed_a));
    else changed_a = (PetscBool)(product->A->nonzerostate != p->nzstate_a);
    if (p->copy_b) PetscCall(DiagAIJRefresh(product->B, p->type, p->B, &changed_b));
    else changed_b = (PetscBool)(product->B->nonzerostate != p->nzstate_b);
    if (changed_a || changed_b) {
      PetscCall(PetscInfo(C, "MatProduct %s through AIJ: the pattern of %s changed since the symbolic phase: the AIJ product made again, C's pattern the union of the old and the new\n", MatProductTypes[product->type], changed_a ? (changed_b ? "A and B" : "A") : "B"));
      PetscCall(DiagAIJProductSetUp(C, p));
      PetscCall(DiagAIJFillFrom(C, p->inner, p->type, PETSC_FALSE));
      p->union_pattern = PETSC_TRUE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(MatProductNumeric(p->inner));
  if (p->union_pattern) PetscCall(DiagAIJFillFrom(C, p->inner, p->type, PETSC_FALSE));
  else PetscCall(MatCopy(p->inner, C, SAME_NONZERO_PATTERN));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductSymbolic_Diag_ThroughAIJ(Mat C)
{
  Mat_Product    *product = C->product;
  DiagAIJProduct *p;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  PetscCheck(!product->data, PetscObjectComm((PetscObject)C), PETSC_ERR_PLIB, "Product data not empty");
  PetscCall(PetscNew(&p));
  PetscCall(DiagAIJProductSetUp(C, p));
  PetscCall(PetscInfo(C, "MatProduct %s of %s and %s: through AIJ (%s and %s), C is AIJ\n", MatProductTypes[product->type], ((PetscObject)product->A)->type_name, ((PetscObject)product->B)->type_name, ((PetscObject)p->A)->type_name, ((PetscObject)p->B)->type_name));
  PetscCall(DiagAIJFillFrom(C, p->inner, p->type, PETSC_TRUE));
  /* after MatSetType: C's ops are AIJ's now, its product stays */
  product->data          = p;
  product->destroy       = DiagAIJProductDestroy;
  C->ops->productnumeric = MatProductNumeric_Diag_ThroughAIJ;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatProductSetFromOptions for the pairs above: every product type but ABC */
PetscErrorCode MatProductSetFromOptions_Diag_ThroughAIJ(Mat C)
{
  Mat_Product *product = C->product;

  PetscFunctionBegin;
  MatCheckProduct(C, 1);
  if (product->type == MATPRODUCT_ABC) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc reports it unsupported */
  C->ops->productsymbolic = MatProductSymbolic_Diag_ThroughAIJ;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatDiagComposeAIJProducts(Mat A, PetscBool set)
{
  const char *names[] = {"MatProductSetFromOptions_seqdiag_seqaij_C", "MatProductSetFromOptions_seqaij_seqdiag_C", "MatProductSetFromOptions_mpidiag_mpiaij_C", "MatProductSetFromOptions_mpiaij_mpidiag_C",
                         "MatProductSetFromOptions_seqdiag_seqaijcusparse_C", "MatProductSetFromOptions_seqaijcusparse_seqdiag_C", "MatProductSetFromOptions_mpidiag_mpiaijcusparse_C", "MatProductSetFromOptions_mpiaijcusparse_mpidiag_C",
                         "MatProductSetFromOptions_seqdiag_seqaijpcsr_C",      "MatProductSetFromOptions_seqaijpcsr_seqdiag_C",      "MatProductSetFromOptions_mpidiag_mpiaijpcsr_C",      "MatProductSetFromOptions_mpiaijpcsr_mpidiag_C"};

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) PetscCall(PetscObjectComposeFunction((PetscObject)A, names[i], set ? MatProductSetFromOptions_Diag_ThroughAIJ : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
