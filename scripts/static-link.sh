#!/bin/sh
# static-link.sh CC ARGS... - a static link (-static) without glibc's
# "Using 'dlopen' / 'getaddrinfo' / 'gethostbyname' in statically linked
# applications requires at runtime the shared libraries from the glibc
# version used for linking" warnings, each with its "in function" line:
# they come from libcrypto objects that libnvme.a pulls in (TLS keys, DSO
# engines, BIO address lookups), code the static guest programs never
# reach. Every other message of the link is printed; the exit status is
# the link's.
err=$(mktemp)
"$@" 2>"$err"
st=$?
awk '/in statically linked applications requires at runtime the shared libraries/ {
         held = ""; next }
     { if (held != "") print held; held = "" }
     /: in function `.*'"'"':$/ { held = $0; next }
     { print }
     END { if (held != "") print held }' "$err" >&2
rm -f "$err"
exit $st
