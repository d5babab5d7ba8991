#!/bin/sh
# ctags-recall.sh DIR [LANG] - how many of universal-ctags' function
# definitions mcpidx finds at the same file and line.
#   LANG: c (default; .c and .h as C), python, go, ..., lua, r, powershell, ocaml,
#   ocaml_interface (.mli: ctags' vals against our functions and values), awk,
#   ruby, php, java, kotlin, csharp, perl
# Needs: ctags (universal) and `make` (the dump program bench/symdump.c is
# built into build/symdump; SYMDUMP=path uses another one).
# Prints the recall and writes the misses to build/recall-<lang>.miss.
set -u
dir=${1:?usage: ctags-recall.sh DIR [LANG]}
lang=${2:-c}
dump=${SYMDUMP:-build/symdump}
if [ -z "${SYMDUMP:-}" ]; then
	make -s build/symdump >/dev/null || { echo "ctags-recall: cannot build build/symdump" >&2; exit 2; }
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
case $lang in
c) cl=C; opt="--langmap=C:.c.h --kinds-C=f"; pat='\.[ch]$';;
cpp) cl=C++; opt="--kinds-C++=f"; pat='\.(cc|cpp|cxx|hpp|hh)$';;
python) cl=Python; opt="--kinds-Python=fm"; pat='\.py$';;
go) cl=Go; opt="--kinds-Go=f"; pat='\.go$';;
rust) cl=Rust; opt="--kinds-Rust=fP"; pat='\.rs$';;
javascript) cl=JavaScript; opt="--kinds-JavaScript=fm"; pat='\.js$';;
typescript) cl=TypeScript; opt="--kinds-TypeScript=fm"; pat='\.ts$';;
sh|bash) cl=Sh; opt="--kinds-Sh=f"; pat='\.(sh|bash)$';;
lua) cl=Lua; opt="--kinds-Lua=f"; pat='\.lua$';;
r) cl=R; opt="--kinds-R=f"; pat='\.[rR]$';;
powershell) cl=PowerShell; opt="--kinds-PowerShell=f"; pat='\.(ps1|psm1)$';;
ocaml) cl=OCaml; opt="--kinds-OCaml=f"; pat='\.ml$';;
ocaml_interface) cl=OCaml; opt="--kinds-OCaml=p"; pat='\.mli$';;
awk) cl=Awk; opt="--kinds-Awk=f"; pat='\.g?awk$';;
ruby) cl=Ruby; opt="--kinds-Ruby=fS"; pat='\.rb$';;
php) cl=PHP; opt="--kinds-PHP=f"; pat='\.php$';;
java) cl=Java; opt="--kinds-Java=m"; pat='\.java$';;
kotlin) cl=Kotlin; opt="--kinds-Kotlin=m"; pat='\.kts?$';;
csharp) cl=C#; opt="--kinds-C#=m"; pat='\.cs$';;
perl) cl=Perl; opt="--kinds-Perl=s"; pat='\.(pl|pm|t)$';;
*) echo "ctags-recall: unknown language $lang (c cpp python go rust javascript typescript bash lua r powershell ocaml ocaml_interface awk ruby php java kotlin csharp perl)" >&2; exit 2;;
esac
# shellcheck disable=SC2086
ctags -R --languages=$cl $opt --fields=+n -f - "$dir" 2>/dev/null |
	awk -F'\t' '{ line=""; for (i = 4; i <= NF; i++) if ($i ~ /^line:/) line=substr($i, 6);
		if (line != "") { name = $1
		# Lua: ctags names M.f and M:m with their table, and tags any
		# assignment whose line holds the word function (x = f(function ...),
		# x = (function () ... end)()): only definitions count, a line
		# "function name(" or "name = function("
		if (lang == "lua" && $3 !~ /^\/\^[ \t]*(local[ \t]+)?function[ \t]/ &&
		    $3 !~ /=[ \t]*function[ \t]*\(/) next
		# a table key in brackets is a name only when it is a string
		if (lang == "lua" && name ~ /\]$/) {
			if (name !~ /"\]$/) next
			sub(/"\]$/, "", name); sub(/.*\["/, "", name)
		} else if (lang == "lua") sub(/.*[.:]/, "", name)
		if (lang == "r" && name ~ /^anonFunc/) next
		# OCaml: let _ = e and let () = e bind no name
		if (lang == "ocaml" && (name == "_" || name == "()")) next
		print $2 "\t" line "\t" name } }' lang="$lang" | sort -u > "$tmp/ctags"
find "$dir" -type f | grep -E "$pat" | "$dump" "$lang" |
	awk -F'\t' -v lang="$lang" '$4 == "function" || $4 == "method" ||
	(lang == "ocaml_interface" && $4 == "variable") { print $1 "\t" $2 "\t" $3 "\t" $5 "\t" $6 }' | sort -u > "$tmp/ours"
# A ctags tag (the line of the name) is found at the same line when we have a
# function of that name in that file whose name is written on that line;
# also printed: the tag's line within our header (start line .. body line),
# and at our start line (which includes a return type on the line above).
awk -F'\t' -v miss="$tmp/miss" '
	NR == FNR { k = $1 "\t" $3; span[k] = span[k] " " $2 ":" $4 ":" $5; next }
	{ total++; k = $1 "\t" $3; n = split(span[k], v, " "); ok = 0; st = 0; nm = 0
	  for (i = 1; i <= n; i++) { split(v[i], ab, ":");
		if ($2 + 0 == ab[1] + 0) st = 1
		if ($2 + 0 == ab[3] + 0) nm = 1
		if ($2 + 0 >= ab[1] + 0 && $2 + 0 <= ab[2] + 0) ok = 1 }
	  hit += ok; strict += st; named += nm; if (!nm) print > miss }
	END { printf "ctags functions: %d, found at the same line (our name line): %d (%.2f%%); in our header lines: %d (%.2f%%); at our start line: %d (%.2f%%)\n",
		total, named, total ? 100 * named / total : 0, hit, total ? 100 * hit / total : 0, strict, total ? 100 * strict / total : 0 }
' "$tmp/ours" "$tmp/ctags"
mkdir -p build
cp "$tmp/miss" "build/recall-$lang.miss" 2>/dev/null || : > "build/recall-$lang.miss"
echo "ours: $(wc -l < "$tmp/ours") functions; misses in build/recall-$lang.miss"
