#!/bin/sh
# The two valleys of examples/avalanche: a 25 degree channel (3.5 m long, 1 m wide, 0.3 m deep)
# opening onto a flat runout (flat.tif) or a 3 degree runout (runout3.tif), 8 m x 3 m at 5 cm
# pixels. Made by the shipped generator; no download.
set -e
here=$(dirname "$0")
for case in "flat.tif 0" "runout3.tif 3"; do
  set -- $case
  /usr/bin/python3 "$here/../../tools/make_valley.py" --length 8 --width 3 --pixel 0.05 \
    --chute 3.5 --channel-width 1.0 --depth 0.3 --opening 1.0 --transition 0.3 \
    --runout-slope "$2" "$here/$1"
done
