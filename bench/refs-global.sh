#!/bin/sh
# refs-global.sh DIR [LANG] - functions used as values (callbacks, struct
# initializers, method values) found as references, against GNU Global.
#   LANG: c (default) or go.
#   REFS_SCOPE=TREE: the tree whose tags say which names are also types,
#   fields or variables (default DIR).  For a package of a larger tree give
#   the tree: a name that is a function in DIR but a type elsewhere
#   (url.Values, sync.Pool's New field) is no function reference.
# The reference set: every place GNU Global's `global -rx` lists a name of a
# function (functions as universal-ctags lists them in DIR) where the name is
# not called (the next character is not '(').  Ours: mcpidx's references of
# kind value to the same names.  Compared by (file, line, name); prints
# precision, recall and F1, and writes the misses and the extras to
# build/refs-<lang>.miss and build/refs-<lang>.extra.
# Needs: gtags/global (Debian package global; for Go its pygments parser with
# python3-pygments), ctags, and `make` (bench/symdump.c, see ctags-recall.sh).
set -u
dir=${1:?usage: refs-global.sh DIR [LANG]}
lang=${2:-c}
dump=${SYMDUMP:-build/symdump}
for p in global python3-pygments; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || {
		echo "refs-global: installing $p" >&2
		apt-get install -y -qq "$p" >&2 || { echo "refs-global: need $p (apt-get install $p)" >&2; exit 2; }
	}
done
if [ -z "${SYMDUMP:-}" ]; then
	make -s build/symdump mcpidx >/dev/null || { echo "refs-global: cannot build build/symdump" >&2; exit 2; }
fi
case $lang in
c) cl=C; kinds="--langmap=C:.c.h --kinds-C=f"; other="--langmap=C:.c.h --kinds-C=lmvxztesug"; pat='\.[ch]$'; label=native;;
go) cl=Go; kinds="--kinds-Go=fm"; other="--kinds-Go=vcmtwsia"; pat='\.go$'; label=native-pygments;;
*) echo "refs-global: unknown language $lang (c go)" >&2; exit 2;;
esac
dir=$(cd "$dir" && pwd)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/db"
# Go's testdata directories hold fixtures of the type checker and of go/doc,
# deliberately invalid Go among them; they are left out.
( cd "$dir" && find . -type f | grep -E "$pat" | { [ "$lang" = go ] && grep -v '/testdata/' || cat; } |
  sed 's|^\./||' > "$tmp/files" &&
  gtags -q --gtagslabel=$label -f "$tmp/files" "$tmp/db" ) || { echo "refs-global: gtags failed" >&2; exit 2; }
# Names that name only functions: a name-based reference to one of them is
# a reference to a function (names also used for variables, parameters,
# members or types are left out: Global cannot tell those uses apart).
# shellcheck disable=SC2086
ctags -R --languages=$cl $kinds -f - "$dir" 2>/dev/null | cut -f1 | sort -u > "$tmp/fn"
# shellcheck disable=SC2086
ctags -R --languages=$cl $other -f - "${REFS_SCOPE:-$dir}" 2>/dev/null | cut -f1 | sort -u > "$tmp/other"
comm -23 "$tmp/fn" "$tmp/other" > "$tmp/fn2"
# Go: exported names only (ctags does not list locals and parameters, whose
# names collide with unexported functions; capitalised names rarely do).
if [ "$lang" = go ]; then grep '^[A-Z]' "$tmp/fn2"; else cat "$tmp/fn2"; fi > "$tmp/fnames"
# Global's uses of those names that are not calls: path, line, name
# (-s too: without a definition parser for Go, every name is a "symbol")
( cd "$dir" && export GTAGSROOT="$dir" GTAGSDBPATH="$tmp/db" GTAGSLABEL=$label &&
  global -rx '.*'; global -sx '.*' ) 2>/dev/null |
	awk -v names="$tmp/fnames" -v lang="$lang" '
	BEGIN { while ((getline n < names) > 0) fn[n] = 1 }
	{ name = $1; line = $2; path = $3; if (!(name in fn)) next
	  text = $0; sub(/^[^ ]+ +[0-9]+ +[^ ]+ /, "", text)
	  gsub(/"([^"\\]|\\.)*"/, "\"\"", text); gsub(/\/\*([^*]|\*[^\/])*\*\//, " ", text); sub(/\/\/.*/, "", text)
	  # every occurrence of the name on the line: a value if not followed by
	  # ( (a call) or . (a package or receiver before a selector)
	  rest = text; val = 0
	  while ((i = index(rest, name)) > 0) {
		b = i > 1 ? substr(rest, i - 1, 1) : " "; a = substr(rest, i + length(name))
		if (b !~ /[A-Za-z0-9_]/ && a !~ /^[A-Za-z0-9_]/) {
			t = a; sub(/^[ \t]*/, "", t)
			# Go: the type arguments of a generic function come between
			# the name and its call (Reduce[int](s, 0, f))
			if (lang == "go" && substr(t, 1, 1) == "[") {
				d = 0
				for (j = 1; j <= length(t); j++) {
					ch = substr(t, j, 1)
					if (ch == "[") d++
					else if (ch == "]" && --d == 0) break
				}
				t = substr(t, j + 1); sub(/^[ \t]*/, "", t)
			}
			c = substr(t, 1, 1)
			# Go: the definition of a generic function (func F[T any]...)
			pre = substr(text, 1, length(text) - length(rest) + i - 1)
			def = lang == "go" && pre ~ /func[ \t]+(\([^)]*\)[ \t]*)?$/
			if (c != "(" && c != "." && !def) val = 1
		}
		rest = substr(rest, i + length(name))
	  }
	  if (val) print path "\t" line "\t" name }' | sort -u > "$tmp/global"
( cd "$dir" && SYMDUMP_REFS=1 "$OLDPWD/$dump" "$lang" < "$tmp/files" ) |
	awk -F'\t' -v names="$tmp/fnames" '
	BEGIN { while ((getline n < names) > 0) fn[n] = 1 }
	$4 == "value" && ($3 in fn) { print $1 "\t" $2 "\t" $3 }' | sort -u > "$tmp/ours"
both=$(comm -12 "$tmp/global" "$tmp/ours" | wc -l)
g=$(wc -l < "$tmp/global")
o=$(wc -l < "$tmp/ours")
mkdir -p build
comm -23 "$tmp/global" "$tmp/ours" > "build/refs-$lang.miss"
comm -13 "$tmp/global" "$tmp/ours" > "build/refs-$lang.extra"
awk -v b="$both" -v g="$g" -v o="$o" -v l="$lang" 'BEGIN {
	p = o ? b / o : 0; r = g ? b / g : 0; f = p + r ? 2 * p * r / (p + r) : 0
	printf "%s: functions used as values: GNU Global %d, mcpidx %d, both %d: precision %.3f recall %.3f F1 %.3f\n", l, g, o, b, p, r, f }'
echo "misses in build/refs-$lang.miss, extras in build/refs-$lang.extra"
