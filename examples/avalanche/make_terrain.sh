#!/bin/sh
# The two valleys of examples/avalanche: a 25 degree channel (3.5 m long, 1 m wide, 0.3 m deep)
# opening onto a flat runout (flat.tif) or a 3 degree runout (runout3.tif), 20 m x 5 m at 5 cm
# pixels (400 x 100; 16.5 m of runout past the break in slope, so the deposits stop on the
# terrain). Heights are measured from the terrain's lowest point: the flat runout is at z = 0;
# the 3 degree runout reaches z = 0 at the far end (x = 20 m). Made by the shipped generator; no
# download.
set -e
here=$(dirname "$0")
for case in "flat.tif 0" "runout3.tif 3"; do
  set -- $case
  /usr/bin/python3 "$here/../../tools/make_valley.py" --length 20 --width 5 --pixel 0.05 \
    --chute 3.5 --channel-width 1.0 --depth 0.3 --opening 1.0 --transition 0.3 \
    --runout-slope "$2" "$here/$1"
done
