#!/usr/bin/env bash
# Prints one line naming PREFIX and exits 1 when it cannot be installed into: the prefix, or the
# nearest of its parents that exists, must be a writable directory. Silent, exit 0, otherwise.
# Used by the Makefile's install target before it builds.
#   scripts/check-prefix.sh PREFIX
prefix=${1:?usage: check-prefix.sh PREFIX}
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
dir=$prefix
while [ ! -e "$dir" ] && [ "$dir" != / ]; do dir=$(dirname "$dir"); done
if [ ! -d "$dir" ] || [ ! -w "$dir" ]; then
  if [ "$dir" = "$prefix" ]; then
    echo "cannot install into $1: not a writable directory"
  else
    echo "cannot install into $1: $dir is not a writable directory"
  fi
  exit 1
fi
