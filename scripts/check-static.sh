#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every function that is not static must be declared in a header and used
# from another object file (a program, a tool, a test or the library);
# anything else should be static.  Reads the objects of a built tree:
#   scripts/build.sh && make -j2 && make -C tests check TESTS= &&
#   scripts/check-static.sh
# Prints each offender and exits 1 when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."

# Only objects of sources in git: not generated code (rpcgen), not a file
# removed since the last build.  Automake names per-target objects
# TARGET-SOURCE.o.
declare -A tracked
while read -r f; do tracked[$f]=1; done < <(git ls-files '*.c')
objs=()
while read -r o; do
	dir=${o%/*} base=${o##*/}
	base=${base%.o}
	[ -n "${tracked[$dir/$base.c]:-}" ] ||
		[ -n "${tracked[$dir/${base#*-}.c]:-}" ] || continue
	objs+=("$o")
done < <(find lib server tools tests -name '*.o' | sort)
[ ${#objs[@]} -gt 0 ] || { echo "check-static: no objects; build first" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# OBJECT SYMBOL for each function an object defines globally, and each
# symbol an object uses from elsewhere.
for o in "${objs[@]}"; do
	nm --defined-only -g "$o" | awk -v o="$o" '$2 == "T" { print o, $3 }'
done > "$tmp/defs"
for o in "${objs[@]}"; do
	nm -u "$o" | awk -v o="$o" '{ print o, $2 }'
done > "$tmp/uses"
git ls-files '*.h' > "$tmp/headers"

bad=0
while read -r obj sym; do
	[ "$sym" = main ] && continue
	# LLVMFuzzerTestOneInput and friends are called by the fuzzing engine.
	case $sym in LLVMFuzzer*) continue ;; esac
	if ! xargs grep -qw -- "$sym" < "$tmp/headers"; then
		echo "$obj: $sym is not declared in any header"
		bad=1
		continue
	fi
	if ! awk -v o="$obj" -v s="$sym" '$1 != o && $2 == s { f = 1 } END { exit !f }' "$tmp/uses"; then
		echo "$obj: $sym is used by no other file: make it static"
		bad=1
	fi
done < "$tmp/defs"
exit $bad
