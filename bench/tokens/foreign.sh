#!/bin/sh
# foreign.sh - fetches three libraries nobody here wrote, one per language the
# outline must stay lean on, from Debian's archive (the packages ship their
# sources): Click (Python), Gin (Go), Express (JavaScript, with its
# examples).  They are unpacked under build/corpus/foreign/ and never
# installed; prints NAME=PATH lines like bench/corpus.sh.
#   sh bench/tokens/foreign.sh        # from the repository root
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
dest="$top/build/corpus/foreign"
mkdir -p "$dest/debs"

# name  package                          version      directory inside the package
pkgs='click   python3-click                    8.1.3-2      usr/lib/python3/dist-packages/click
gin     golang-github-gin-gonic-gin-dev  1.8.1-1      usr/share/gocode/src/github.com/gin-gonic/gin
express node-express                     4.18.2+~4.17.14-1 usr/share/nodejs/express'

echo "$pkgs" | while read -r name pkg ver dir; do
	if [ ! -f "$dest/$name/.complete" ]; then
		echo "foreign: fetching $pkg $ver" >&2
		(cd "$dest/debs" && apt-get download "$pkg=$ver" >&2) || {
			echo "foreign: cannot download $pkg=$ver; run: apt-get update" >&2
			exit 1
		}
		rm -rf "$dest/$name" "$dest/$name.x"
		dpkg-deb -x "$(ls "$dest/debs/${pkg}_"*.deb | head -1)" "$dest/$name.x"
		mv "$dest/$name.x/$dir" "$dest/$name"
		if [ "$name" = express ]; then
			# the repository's examples ship as documentation
			cp -r "$dest/$name.x/usr/share/doc/node-express/examples" "$dest/$name/examples"
		fi
		rm -rf "$dest/$name.x"
		touch "$dest/$name/.complete"
	fi
	echo "$name=$dest/$name"
done
