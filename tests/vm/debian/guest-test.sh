#!/bin/bash
# guest-test.sh - runs inside the Debian guest (tests/vm/run-debian-tests.sh
# boots it with scripts/vm-run.sh, this folder shared at /mnt/host). Each
# step prints "@@T NAME RC"; what the host compares goes into out/.
#   tools     the drive and the installed pieces: /dev/ng0n1, reis info,
#             nvme list, pkg-config libreis, man reis, python3 -c 'import reis'
#   hello     examples/hello copied as a user would: make (pkg-config), run
#             on the drive -> out/hello.txt
#   hello-cc  the README's one-line cc command, run again -> out/hello-cc.txt
#   module    a kernel module built against the running kernel's headers,
#             loaded, its message in the kernel log, unloaded
#   python    the FAISS user's script switched to the drive by one line, on
#             the host's data -> out/faiss.npz
#   rag       python/examples/rag_demo.py on the corpus (when shared) ->
#             out/rag.json
#   share     a file written here is read back by the host
cd /mnt/host || exit 1
mkdir -p out
# step NAME FUNCTION: FUNCTION in a subshell that stops at its first error
step() {
    local name=$1 rc
    shift
    echo "@@T-START $name"
    (set -e; "$@") >"out/$name.log" 2>&1
    rc=$?
    tail -n 40 "out/$name.log"
    echo "@@T $name $rc"
}

tools() {
    test -c /dev/ng0n1
    reis info | grep -q 'preset'
    nvme list | grep -q ng0n1 || nvme list | grep -q nvme0n1
    pkg-config --modversion libreis
    test -f /usr/lib/x86_64-linux-gnu/libreis.so.0 && test -f /usr/include/libreis.h
    man -w reis_open
    python3 -c 'import reis, numpy, faiss; print(reis.version(), numpy.__version__, faiss.__version__)'
    uname -r
    test -d "/lib/modules/$(uname -r)/build"
}

hello() {
    rm -rf work/hello && mkdir -p work && cp -r /usr/share/isp-ssd/examples/hello work/hello
    make -C work/hello
    work/hello/hello_reis /dev/ng0n1 >out/hello.txt
    cat out/hello.txt
}

hello_cc() {
    cd work
    # the README's line as a user types it: pkg-config's words split
    # shellcheck disable=SC2046
    cc -o hello_cc /usr/share/isp-ssd/examples/hello/hello_reis.c $(pkg-config --cflags --libs libreis)
    ./hello_cc >../out/hello-cc.txt
    cat ../out/hello-cc.txt
}

module() {
    rm -rf work/mod && mkdir -p work/mod && cd work/mod
    cat >isp_hello.c <<'C'
#include <linux/module.h>
#include <linux/init.h>
static int __init isp_hello_init(void)
{
	pr_info("isp_hello: built in the guest\n");
	return 0;
}
static void __exit isp_hello_exit(void)
{
}
module_init(isp_hello_init);
module_exit(isp_hello_exit);
MODULE_LICENSE("GPL");
C
    echo 'obj-m := isp_hello.o' >Kbuild
    make -C "/lib/modules/$(uname -r)/build" M="$PWD" modules
    insmod isp_hello.ko
    dmesg | grep -q 'isp_hello: built in the guest'
    grep -q '^isp_hello ' /proc/modules
    rmmod isp_hello
}

python_switch() {
    sed 's/^index = faiss.IndexBinaryFlat(d)$/index = reis.IndexBinaryFlat(d)/' \
        /usr/share/isp-ssd/examples/python/faiss_binary.py >work/faiss_drive.py
    grep -q '^index = reis.IndexBinaryFlat(d)$' work/faiss_drive.py
    python3 work/faiss_drive.py data/faiss.npz out/faiss.npz
}

rag() {
    python3 /usr/share/isp-ssd/examples/python/rag_demo.py --corpus corpus --json out/rag.json
}

step tools tools
step hello hello
step hello-cc hello_cc
step module module
step python python_switch
if [ -f corpus/passages.fvecs ]; then
    step rag rag
fi
echo "written in the guest" >out/share.txt
echo "@@T share 0"
