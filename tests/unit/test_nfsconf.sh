#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_nfsconf.sh - libnfswb reads nfs.conf exactly as nfs-utils does:
# for a set of tricky files every value (and every "unset") must equal
# what `nfsconf --file F --get [--arg A] SECTION TAG` prints.  Then the
# problems we report must name the right FILE:LINE.
#
# Run from the tests build directory (make check does), which holds
# unit/nfsconf_get.

set -u

if ! command -v nfsconf >/dev/null 2>&1; then
	echo "SKIP: nfsconf not installed (Debian package nfs-common)" >&2
	exit 77
fi
GET=./unit/nfsconf_get
if [ ! -x "$GET" ]; then
	echo "FAIL: $GET not built" >&2
	exit 1
fi

T=$(mktemp -d /tmp/test_nfsconf.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
checks=0

# q FILE [--arg A] SECTION TAG: compare output and exit status.
q() {
	f=$1
	shift
	nfsconf --file "$f" --get "$@" >"$T/want" 2>/dev/null
	wrc=$?
	"$GET" "$f" "$@" >"$T/got" 2>/dev/null
	grc=$?
	checks=$((checks + 1))
	if [ "$wrc" != "$grc" ] || ! cmp -s "$T/want" "$T/got"; then
		echo "FAIL: ${f#$T/}: $*: nfsconf rc=$wrc '$(cat "$T/want")'," \
			"nfswb rc=$grc '$(cat "$T/got")'" >&2
		fail=1
	fi
}

# --- quotes, comments, blanks, case, duplicates, [section "arg"] ---
F=$T/tricky.conf
printf '%s\n' \
	'# comment' \
	'; another comment' \
	'   # indented comment' \
	'[General]' \
	'pipefs-directory = /run/rpc_pipefs' \
	'  Threads=8   ' \
	'spaces   =   a b c   ' \
	'hash = value # trailing comment' \
	'semi = value ; trailing' \
	'hashsemi = a;b#c' \
	'dq = "quoted # not a comment ; either"  trailing junk' \
	"sq = 'single \"x\" '" \
	'mixq = "a'"'"'b"' \
	'dq_empty = ""' \
	'empty =' \
	'blank =    ' \
	'unterminated = "abc' \
	"tabbed	=	tab value	" \
	'inner space tag = 1' \
	'eq = a=b=c' \
	'[ nfsd ]   trailing text after the bracket' \
	'threads = 4' \
	'threads = 16' \
	'Host = example' \
	'[mountd]' \
	'x = 1' \
	'y = 1' \
	'[mountd "sub"]' \
	'x = 2' \
	'z = 3' \
	'[ nfsd  "Arg With Space" ]' \
	'threads = 5' \
	'[statd "a"]' \
	'port = 1' \
	'[statd "b"]' \
	'port = 2' \
	'[MixedCase]' \
	'Key = Value' \
	'[]' \
	'nameless = 1' \
	'[environment]' \
	'myvar = from-environment-section' \
	'nfswb_test_both = from-section' \
	'[refs]' \
	'a = $myvar' \
	'b = $NFSWB_TEST_ENV' \
	'c = $undefined_var' \
	'd = $chain' \
	'e = $NFSWB_TEST_BOTH' \
	'f = "$myvar"' \
	'g = $' \
	'[environment]' \
	'chain = $MYVAR' \
	'[cont]' \
	'long = one \' \
	' two \' \
	'  three' \
	'after = yes' \
	'[broken' \
	'lost = 1' \
	'[ok2]' \
	'noeq line' \
	'= novalue-tag' \
	'kept = 2' \
	'[q "unclosed]' \
	'v = 1' \
	'[last]' >"$F"
printf 'x = 1\nno-newline = 1' >>"$F"

export NFSWB_TEST_ENV=from-process NFSWB_TEST_BOTH=process-wins
unset MYVAR 2>/dev/null || true

for tag in pipefs-directory threads THREADS spaces hash semi hashsemi dq sq \
	   mixq dq_empty empty blank unterminated tabbed "inner space tag" eq; do
	q "$F" general "$tag"
done
q "$F" GENERAL pipefs-directory
q "$F" nfsd threads
q "$F" nfsd host
q "$F" nfsd "trailing text after the bracket"
q "$F" --arg "Arg With Space" nfsd threads
q "$F" --arg "arg with space" nfsd threads
q "$F" mountd x
q "$F" mountd y
q "$F" mountd z
q "$F" --arg sub mountd x
q "$F" --arg sub mountd y
q "$F" --arg sub mountd z
q "$F" --arg SUB mountd z
q "$F" statd port
q "$F" --arg a statd port
q "$F" --arg b statd port
q "$F" mixedcase key
q "$F" MIXEDCASE KEY
q "$F" "" nameless
for tag in a b c d e f g; do
	q "$F" refs "$tag"
done
q "$F" environment myvar
q "$F" environment chain
q "$F" cont long
q "$F" cont after
q "$F" broken lost
q "$F" ok2 kept
q "$F" ok2 noeq
q "$F" q v
q "$F" --arg unclosed q v
q "$F" last x
q "$F" last no-newline
q "$F" nosuchsection x

# --- include (relative, optional, missing), sections after it, FILE.d ---
F=$T/main.conf
mkdir -p "$T/inc" "$T/main.conf.d"
printf '%s\n' \
	'[nfswbd]' \
	'mode = files' \
	'include = inc/part.conf' \
	'after-include = 1' \
	'include = -missing.conf' \
	'include = /nonexistent/abs.conf' \
	'[other]' \
	'include = inc/sections.conf' \
	'tag = main' \
	'[late]' \
	'include = '"$T"'/inc/absolute.conf' >"$F"
printf '%s\n' 'background-time = 2s' 'mode = kernel' '[fromincl]' \
	'x = y' 'include = nested.conf' >"$T/inc/part.conf"
printf '%s\n' 'nested = from-nested' >"$T/inc/nested.conf"
printf '%s\n' 'tag = included' 'inc2 = 1' >"$T/inc/sections.conf"
printf '%s\n' 'abs = 1' >"$T/inc/absolute.conf"
printf '%s\n' '[nfswbd]' 'mode = kernel' 'writers = nfsd' \
	>"$T/main.conf.d/9-b.conf"
printf '%s\n' '[nfswbd]' 'mode = limit' '[late]' 'abs = 2' \
	>"$T/main.conf.d/10-a.conf"
printf '%s\n' '[nfswbd]' 'mode = ignored' >"$T/main.conf.d/x.conf.disabled"
printf '%s\n' '[nfswbd]' 'mode = ignored' >"$T/main.conf.d/.hidden.conf"

for tag in mode background-time after-include writers; do
	q "$F" nfswbd "$tag"
done
q "$F" fromincl x
q "$F" fromincl nested
q "$F" nfswbd nested
q "$F" other tag
q "$F" other inc2
q "$F" late abs

# problems NAME: what --check says of $T/NAME is stdin, to the letter.
problems() {
	"$GET" "$T/$1" --check | sed "s|$T/||" >"$T/problems"
	cat >"$T/want_problems"
	checks=$((checks + 1))
	if ! cmp -s "$T/want_problems" "$T/problems"; then
		echo "FAIL: problems reported for $1 differ:" >&2
		diff -u "$T/want_problems" "$T/problems" >&2
		fail=1
	fi
}

# --- CRLF line ends and a NUL byte ---
F=$T/crlf.conf
printf '[a]\r\nx = 1\r\nempty = \r\nq = "v"\r\n' >"$F"
q "$F" a x
q "$F" a empty
q "$F" a q
F=$T/nul.conf
printf '[a]\nx = 1\n\000y = 2\n' >"$F"
q "$F" a x
q "$F" a y
# ... but said so, at the line of the NUL
problems nul.conf <<'END'
nul.conf:3: NUL byte: the rest of the file is ignored (as nfs-utils does)
END

# --- the problems we report, with the line each entry starts on ---
problems tricky.conf <<'END'
tricky.conf:17: no closing ": the assignment is ignored
tricky.conf:23: [nfsd] threads set again (first at line 22); the later value wins
tricky.conf:59: no ']' closing the section name; lines up to the next section are ignored
tricky.conf:60: assignment outside any section is ignored
tricky.conf:62: line is neither a section, an assignment nor a comment
tricky.conf:63: assignment without a name
tricky.conf:65: no '"' closing the section argument; values go to [q] itself
tricky.conf:69: last line has no newline and is ignored (as nfs-utils does)
END
problems main.conf <<'END'
main.conf:6: cannot include /nonexistent/abs.conf: No such file or directory
END

echo "$checks checks, $([ $fail = 0 ] && echo all agree || echo some differ)"
exit $fail
