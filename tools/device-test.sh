#!/bin/sh
# Kept at this path for the people and notes that call it: the script is tools/device/device-test.sh.
exec sh "$(dirname "$0")/device/device-test.sh" "$@"
