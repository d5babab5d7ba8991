#!/usr/bin/awk -f
# Sums the sizes per owner of an `ls -l` listing.
@include "lib.awk"

BEGIN {
  FS = " +"
  total = 0
}

# Rounds n to a whole number of kilobytes.
function kb(n,    r) {
  r = int(n / 1024)
  return r
}

function _pad(s, w) { return sprintf("%-" w "s", s) }

NR > 1 && $5 ~ /^[0-9]+$/ {
  size[$3] += $5
  total += $5
}

/^total/ { next }

END {
  for (u in size)
    print _pad(u, 12), kb(size[u])
  print "all", kb(total)
}

# Describes a pointer level.
function ptr_to(n,  x)  # print "pointer to" , n times
{ n = int(n)
  return x
}
