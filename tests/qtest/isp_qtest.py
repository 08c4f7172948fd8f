#!/usr/bin/env python3
# isp_qtest.py QEMU RESULTS_DIR [TEST...] - ISP glue tests driven through
# QEMU's qtest protocol (-accel qtest): this script is the NVMe host driver.
# It programs the PCI function, builds admin and I/O queues in guest RAM and
# rings doorbells itself, so it can do what a Linux guest cannot (delete one
# I/O submission queue, hold the virtual clock still so isp-timing=delay
# completions wait until it says so) and time the main loop from outside
# while QEMU cancels commands. Called by run-qtest.sh; prints one
# PASS/FAIL/SKIP line per test and "isp-qtest: P F S" last.
#
# Tests:
#   ftl-delay-hold  with isp-timing=delay an ordinary 4 KiB Read completes
#                 when the virtual clock passes its modeled time, not 2 us
#                 earlier (qtest steps the clock); held reads complete when
#                 their queue is deleted, and at a reset (docs/ftl.md);
#   ftl-needs-isp isp-ftl=on with isp=off is refused at realize;
#   lost-wakeup   delayed commands fill the glue's bounce-buffer budget, a
#                 command on another queue waits for budget, the first queue
#                 is deleted: the waiting command must start (and complete
#                 once the virtual clock passes its modeled time).
#   delete-sq-during-search, reset-during-search
#                 a 1024-query brute-force search over 100000 codes runs
#                 (database deployed into a backing file by $REIS_CLI,
#                 cached in $ISP_QTEST_CACHE); Delete I/O SQ, or CC.EN=0,
#                 must finish in under a quarter of the search's own time
#                 while a thread pings the QMP monitor (worst round trip
#                 printed and bounded the same way; two rounds, the better
#                 judged); 08h for the deleted queue's search; the drive
#                 answers a new search after.
#   cs-slm-cp     the standard interface (docs/command-set.md section 9):
#                 CAP.CSS, Identify CNS 1Ch/02h/03h/05h/07h/08h, the
#                 Commands Supported and Effects log per CSI, Load Program
#                 refused, Program Activation, Memory Range Set create /
#                 delete, Memory Write/Read/Fill/Copy (formats 4h and 2h),
#                 Execute Program (isp-manage's Identify equals the vendor
#                 Identify byte for byte), errors with their Error
#                 Information entries, CC.CSS 000b.
#   cs-off        isp-cs=off (the default): neither namespace, no CP admin
#                 commands.
#   copy-stall    96 ECHO_C2H then 96 ECHO_H2C of 2 MiB, each burst rung at
#                 once (bounce budget 256 MiB at host_mem=16g), twice,
#                 while a thread pings QMP: the worst round trip in the
#                 better round of each kind stays under a quarter of that
#                 burst's time (the
#                 glue copies guest memory 128 KiB per main-loop turn),
#                 and every H2C compares equal to what the C2H wrote (the
#                 sliced copies are exact).
import os
import random
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

BAR0 = 0xFE000000
PAGE = 4096
NSID = 1
ISP_OP_ECHO_H2C = 0x81
ISP_OP_ECHO_C2H = 0x86
NVME_CMD_ABORT_SQ_DEL = 0x0008


class Qtest:
    """One QEMU process under -accel qtest, spoken to over a unix socket."""

    def __init__(self, qemu, dev_opts, tmp, extra=(), drive=None):
        self.sock_path = os.path.join(tmp, "qtest.sock")
        self.qmp_path = os.path.join(tmp, "qmp.sock")
        img = os.path.join(tmp, "ns.img")
        with open(img, "wb") as f:
            f.truncate(16 << 20)
        if drive is None:
            drive = "file=%s,if=none,id=d0,format=raw" % img
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(self.sock_path)
        srv.listen(1)
        self.log = open(os.path.join(tmp, "qemu.log"), "w")
        args = [qemu, "-M", "pc", "-accel", "qtest", "-m", "256M",
                "-nodefaults", "-display", "none",
                "-qtest", "unix:" + self.sock_path, "-qtest-log", "/dev/null",
                "-qmp", "unix:%s,server=on,wait=off" % self.qmp_path,
                "-drive", drive,
                "-device", "nvme,serial=qt0,drive=d0,addr=04.0," + dev_opts]
        args += list(extra)
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log)
        srv.settimeout(30)
        self.s, _ = srv.accept()
        srv.close()
        self.s.settimeout(120)
        self.buf = b""

    def cmd(self, line):
        self.s.sendall(line.encode() + b"\n")
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                reply, self.buf = self.buf[:nl].decode(), self.buf[nl + 1:]
                if reply.startswith("IRQ"):
                    continue
                if not reply.startswith("OK"):
                    raise RuntimeError("qtest: %s -> %s" % (line, reply))
                return reply[3:]
            data = self.s.recv(65536)
            if not data:
                raise RuntimeError("qtest: QEMU closed the socket")
            self.buf += data

    def outl(self, port, v):
        self.cmd("outl 0x%x 0x%x" % (port, v))

    def inl(self, port):
        return int(self.cmd("inl 0x%x" % port), 16)

    def writel(self, a, v):
        self.cmd("writel 0x%x 0x%x" % (a, v))

    def writeq(self, a, v):
        self.cmd("writeq 0x%x 0x%x" % (a, v))

    def readl(self, a):
        return int(self.cmd("readl 0x%x" % a), 16)

    def readq(self, a):
        return int(self.cmd("readq 0x%x" % a), 16)

    def write(self, a, data):
        if data:
            self.cmd("write 0x%x 0x%x 0x%s" % (a, len(data), data.hex()))

    def read(self, a, n):
        return bytes.fromhex(self.cmd("read 0x%x 0x%x" % (a, n))[2:])

    def memset(self, a, n, v):
        self.cmd("memset 0x%x 0x%x 0x%x" % (a, n, v))

    def rss_anon(self):
        """QEMU's anonymous resident memory (bytes), from /proc."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) << 10
        return 0

    def clock_step(self, ns):
        self.cmd("clock_step %d" % ns)

    def close(self):
        """Stop QEMU (SIGTERM: a clean exit); True if it was still alive."""
        alive = self.proc.poll() is None
        self.s.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        return alive


class Queue:
    def __init__(self, qid, size, sq, cq):
        self.qid, self.size, self.sq, self.cq = qid, size, sq, cq
        self.tail = 0
        self.head = 0
        self.phase = 1


class Nvme:
    """A minimal NVMe host driver: polled queues, PRP lists, no interrupts."""

    def __init__(self, qt):
        self.qt = qt
        self.next_mem = 0x1000000   # guest RAM above 16 MiB is ours
        self.cid = 0
        cfg = 0x80000000 | (4 << 11)    # bus 0, device 4, function 0
        qt.outl(0xCF8, cfg | 0x10)
        qt.outl(0xCFC, BAR0)
        qt.outl(0xCF8, cfg | 0x14)
        qt.outl(0xCFC, 0)
        qt.outl(0xCF8, cfg | 0x04)
        qt.outl(0xCFC, 0x6)             # memory space + bus master
        cap = qt.readq(BAR0)
        self.dstrd = 4 << ((cap >> 32) & 0xF)
        self.admin = self._queue(0, 32)
        qt.writel(BAR0 + 0x24, (31 << 16) | 31)        # AQA
        qt.writeq(BAR0 + 0x28, self.admin.sq)          # ASQ
        qt.writeq(BAR0 + 0x30, self.admin.cq)          # ACQ
        self.enable()

    def enable(self, css=0):
        self.qt.writel(BAR0 + 0x14, 1 | (css << 4) | (6 << 16) | (4 << 20))
        self.wait_csts(1)

    def reset(self, css=0):
        """CC.EN = 0 (a controller reset), then a fresh admin queue and
        enable with CC.CSS = @css; returns the seconds the reset took
        (CSTS.RDY = 0)."""
        t = time.time()
        self.qt.writel(BAR0 + 0x14, 0)
        self.wait_csts(0)
        took = time.time() - t
        self.admin = self._queue(0, 32)
        self.qt.writel(BAR0 + 0x24, (31 << 16) | 31)
        self.qt.writeq(BAR0 + 0x28, self.admin.sq)
        self.qt.writeq(BAR0 + 0x30, self.admin.cq)
        self.enable(css)
        return took

    def wait_csts(self, rdy, secs=30):
        end = time.time() + secs
        while (self.qt.readl(BAR0 + 0x1C) & 1) != rdy:
            if time.time() > end:
                raise RuntimeError("CSTS.RDY never became %d" % rdy)
            time.sleep(0.01)

    def alloc(self, n):
        a = self.next_mem
        self.next_mem += (n + PAGE - 1) // PAGE * PAGE
        return a

    def _queue(self, qid, size):
        q = Queue(qid, size, self.alloc(size * 64), self.alloc(size * 16))
        self.qt.write(q.cq, bytes(size * 16))
        return q

    def prps(self, buf, n):
        """PRP1/PRP2 for @n bytes at page-aligned @buf (one list page)."""
        if n <= PAGE:
            return buf, 0
        if n <= 2 * PAGE:
            return buf, buf + PAGE
        pages = (n + PAGE - 1) // PAGE
        assert pages - 1 <= PAGE // 8
        lst = self.alloc(PAGE)
        self.qt.write(lst, b"".join(struct.pack("<Q", buf + i * PAGE)
                                    for i in range(1, pages)))
        return buf, lst

    def submit(self, q, opc, nsid=0, prp=(0, 0), cdw=(0,) * 6, ring=True,
               cdw23=0, mptr=0):
        self.cid = (self.cid + 1) & 0xFFFF
        sqe = struct.pack("<IIQQQQ6I", opc | (self.cid << 16), nsid, cdw23,
                          mptr, prp[0], prp[1], *cdw)
        self.qt.write(q.sq + q.tail * 64, sqe)
        q.tail = (q.tail + 1) % q.size
        if ring:
            self.ring(q)
        return self.cid

    def ring(self, q):
        self.qt.writel(BAR0 + 0x1000 + 2 * q.qid * self.dstrd, q.tail)

    def poll(self, q):
        """The next completion of @q as (cid, status, dw0), or None."""
        e = self.qt.read(q.cq + q.head * 16, 16)
        dw0, _, _, cid, sf = struct.unpack("<IIIHH", e)
        if (sf & 1) != q.phase:
            return None
        q.head = (q.head + 1) % q.size
        if q.head == 0:
            q.phase ^= 1
        self.qt.writel(BAR0 + 0x1000 + (2 * q.qid + 1) * self.dstrd, q.head)
        return cid, sf >> 1, dw0

    def wait(self, q, secs=60):
        end = time.time() + secs
        while True:
            c = self.poll(q)
            if c:
                return c
            if time.time() > end:
                return None
            time.sleep(0.002)

    def admin_cmd(self, opc, cdw10=0, cdw11=0, prp1=0, secs=60):
        cid = self.submit(self.admin, opc, prp=(prp1, 0),
                          cdw=(cdw10, cdw11, 0, 0, 0, 0))
        c = self.wait(self.admin, secs)
        if c is None:
            raise RuntimeError("admin opcode 0x%x timed out" % opc)
        assert c[0] == cid, c
        return c[1]

    def admin_full(self, opc, nsid=0, cdw=(0,) * 6, prp=(0, 0), secs=60):
        """An admin command: (status, dw0)."""
        cid = self.submit(self.admin, opc, nsid, prp=prp, cdw=cdw)
        c = self.wait(self.admin, secs)
        if c is None:
            raise RuntimeError("admin opcode 0x%x timed out" % opc)
        assert c[0] == cid, c
        return c[1], c[2]

    def io_full(self, q, opc, nsid, cdw=(0,) * 6, prp=(0, 0), cdw23=0,
                secs=60):
        """An I/O command: (status, dw0)."""
        cid = self.submit(q, opc, nsid, prp=prp, cdw=cdw, cdw23=cdw23)
        c = self.wait(q, secs)
        if c is None:
            raise RuntimeError("I/O opcode 0x%x timed out" % opc)
        assert c[0] == cid, c
        return c[1], c[2]

    def create_io_queue(self, qid, size):
        q = self._queue(qid, size)
        st = self.admin_cmd(0x05, ((size - 1) << 16) | qid, 1, q.cq)
        if st:
            raise RuntimeError("Create I/O CQ %d: status 0x%x" % (qid, st))
        st = self.admin_cmd(0x01, ((size - 1) << 16) | qid, (qid << 16) | 1,
                            q.sq)
        if st:
            raise RuntimeError("Create I/O SQ %d: status 0x%x" % (qid, st))
        return q

    def delete_sq(self, qid, secs=60):
        return self.admin_cmd(0x00, qid, secs=secs)

    def delete_cq(self, qid):
        return self.admin_cmd(0x04, qid)


def with_qemu(qt, body):
    """Run body(qt) -> reason or None, then stop QEMU, which must be alive."""
    try:
        why = body(qt)
    finally:
        alive = qt.close()
    if why is None and not alive:
        why = "QEMU exited during the test"
    return why


def test_lost_wakeup(qemu, tmp):
    """A cancelled DELAYED command frees budget: the waiter must start."""
    # mdts=0: 2 MiB per command, so 32 fill the 64 MiB budget; every
    # completion is held for 1 s of virtual time, which stands still.
    qt = Qtest(qemu, "mdts=0,isp=on,isp-timing=delay,isp-params=ctrl_cmd=1000ms",
               tmp, os.environ.get("ISP_QTEST_EXTRA", "").split())
    return with_qemu(qt, lost_wakeup)


def lost_wakeup(qt):
    nv = Nvme(qt)
    q1 = nv.create_io_queue(1, 64)
    q2 = nv.create_io_queue(2, 8)
    big = 2 << 20
    buf = nv.alloc(big)
    prp = nv.prps(buf, big)
    for i in range(32):
        nv.submit(q1, ISP_OP_ECHO_C2H, NSID, prp,
                  (big // 4, 0, i, 0, 0, 0), ring=False)
    nv.ring(q1)
    time.sleep(1.0)     # the model runs them; then they sit DELAYED
    small = nv.alloc(PAGE)
    cid = nv.submit(q2, ISP_OP_ECHO_C2H, NSID, (small, 0),
                    (PAGE // 4, 0, 77, 0, 0, 0))
    time.sleep(0.3)
    if nv.poll(q2) is not None:
        return "the waiter completed before the budget was free"
    st = nv.delete_sq(1)
    if st:
        return "Delete I/O SQ 1: status 0x%x" % st
    aborted = 0
    while True:
        c = nv.poll(q1)
        if c is None:
            break
        if c[1] != NVME_CMD_ABORT_SQ_DEL:
            return "a deleted queue's command completed with 0x%x" % c[1]
        aborted += 1
    if aborted != 32:
        return "%d of 32 commands of the deleted queue completed" % aborted
    time.sleep(0.5)     # a started waiter reaches DELAYED
    # the modeled controller is still busy with the 32 cancelled ones
    # (about 1 s each, three at a time): well past all of them
    qt.clock_step(60 * 10**9)
    c = nv.wait(q2, 10)
    if c is None:
        return ("the waiting command never started after SQ deletion "
                "freed the budget (%d aborted)" % aborted)
    if c[0] != cid or c[1] != 0:
        return "waiter completed cid %d status 0x%x" % (c[0], c[1])
    data = qt.read(small, 16)
    if data == bytes(16):
        return "the waiter's data never arrived"
    return None


ISP_OP_REIS_SEARCH = 0x99
ISP_OP_RESULT_RELEASE = 0xA4
ISP_REIS_SF_NO_RERANK = 1 << 3
SEARCH_DIM = 512
SEARCH_N = 100000
SEARCH_NQ = 1024


class QmpPinger(threading.Thread):
    """Sends query-status to the QMP monitor back to back; keeps the worst
    round trip, so a main loop held by a cancel shows up here."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.f = self.s.makefile("rwb")
        self.f.readline()                               # greeting
        self._call("qmp_capabilities")
        self.worst = 0.0
        self.count = 0
        self.done = threading.Event()

    def _call(self, cmd):
        self.f.write(('{"execute": "%s"}\n' % cmd).encode())
        self.f.flush()
        while True:
            line = self.f.readline()
            if not line:
                raise RuntimeError("QMP closed")
            if b'"return"' in line or b'"error"' in line:
                return line

    def run(self):
        while not self.done.is_set():
            t = time.time()
            try:
                self._call("query-status")
            except (OSError, RuntimeError):
                return                          # QEMU went away: the test says why
            self.worst = max(self.worst, time.time() - t)
            self.count += 1
            time.sleep(0.005)

    def stop(self):
        self.done.set()
        self.join(30)
        self.s.close()
        return self.worst


def search_backing(tmp):
    """A backing file holding database 1: SEARCH_N random 512-bit codes,
    deployed in-process by the reis CLI (same model, same geometry)."""
    cache = os.environ.get("ISP_QTEST_CACHE", tmp)
    img = os.path.join(cache, "isp-qtest-search.img")
    if os.path.exists(img):
        return img
    reis = os.environ.get("REIS_CLI", "")
    if not reis or not os.access(reis, os.X_OK):
        return None
    vec = os.path.join(tmp, "v.bvecs")
    rnd = random.Random(7)
    with open(vec, "wb") as f:
        head = struct.pack("<i", SEARCH_DIM)
        for _ in range(SEARCH_N):
            f.write(head + bytes(rnd.getrandbits(8) for _ in range(SEARCH_DIM)))
    tmp_img = img + ".part"
    subprocess.check_call([reis, "--backing", tmp_img, "deploy", "--did", "1",
                           vec], stdout=subprocess.DEVNULL)
    os.replace(tmp_img, img)
    os.remove(vec)
    return img


def search_cmd(nv, q, nq, ticket):
    """Queue (and ring) a brute-force SEARCH of @nq random queries."""
    rnd = random.Random(nq)
    hdr = struct.pack("<10IQQ16x", 1, nq, 10, ISP_REIS_SF_NO_RERANK, 0, 0, 0,
                      0, 0, SEARCH_DIM, 0, 0)
    data = hdr + bytes(rnd.getrandbits(8) for _ in range(nq * SEARCH_DIM // 8))
    data += bytes(-len(data) % 4)
    buf = nv.alloc(len(data))
    nv.qt.write(buf, data)
    return nv.submit(q, ISP_OP_REIS_SEARCH, NSID, nv.prps(buf, len(data)),
                     (len(data) // 4, 0, ticket, 0, 0, 0))


def timed_search(nv, q, ticket):
    """One full search; its wall time (the stop must be a small part)."""
    t = time.time()
    search_cmd(nv, q, SEARCH_NQ, ticket)
    c = nv.wait(q, 300)
    if c is None or c[1]:
        raise RuntimeError("uncancelled search: %s" % (c,))
    nv.submit(q, ISP_OP_RESULT_RELEASE, NSID, cdw=(0, 0, ticket, 0, 0, 0))
    nv.wait(q, 30)
    return time.time() - t


def cancel_test(qemu, tmp, how, n=1):
    """@n long searches in flight on one queue, then Delete I/O SQ or a
    reset: every search is told to stop before the first is waited for, so
    the whole takes about one stop, not n. Two rounds, judged by the better
    (as copy-stall): a stop that waits for a search, or holds the main loop
    through one, stalls both; one host hiccup of 26 ms in 13 pings at load
    1.2 (2026-12-05) failed a single round."""
    img = search_backing(tmp)
    if img is None:
        return "SKIP no REIS_CLI to deploy the database with"
    qt = Qtest(qemu, "mdts=0,isp=on,isp-backing=" + img, tmp)

    def stop_round(nv, full, r):
        """One round on fresh queues: (took, worst) or a reason."""
        sq, short_q, tk = 2 + 4 * r, 3 + 4 * r, 20 * (r + 1)
        q1 = nv.create_io_queue(sq, 16)
        ping = QmpPinger(qt.qmp_path)
        ping.start()
        try:
            for i in range(n):
                search_cmd(nv, q1, SEARCH_NQ, tk + i)
            queued = time.time()
            time.sleep(full / 10)           # well inside the searches
            t = time.time()
            if how == "delete-sq":
                st = nv.delete_sq(sq)
                took = time.time() - t
                if st:
                    return "Delete I/O SQ: status 0x%x" % st
                for i in range(n):
                    c = nv.poll(q1)
                    if c is None or c[1] != NVME_CMD_ABORT_SQ_DEL:
                        return ("search %d of %d completed with %s, not 08h "
                                "(stop sent %.0f ms into a %.0f ms search)" %
                                (i + 1, n, c, (t - queued) * 1e3, full * 1e3))
                nv.delete_cq(sq)
            else:
                took = nv.reset()
            time.sleep(0.05)
        finally:
            worst = ping.stop()
        print("  %s with %d search%s in flight (one alone: %.0f ms), round %d: done in "
              "%.1f ms; worst QMP round trip %.1f ms over %d pings; load %s" %
              (how, n, "es" if n > 1 else "", full * 1e3, r + 1, took * 1e3,
               worst * 1e3, ping.count, loadavg()))
        # the drive still answers: a new queue, a short search
        q3 = nv.create_io_queue(short_q, 8)
        search_cmd(nv, q3, 1, tk + n)
        c = nv.wait(q3, 60)
        if c is None or c[1]:
            return "search after the %s: %s" % (how, c)
        nv.submit(q3, ISP_OP_RESULT_RELEASE, NSID, cdw=(0, 0, tk + n, 0, 0, 0))
        nv.wait(q3, 30)
        return took, worst

    def body(qt):
        nv = Nvme(qt)
        q1 = nv.create_io_queue(1, 16)
        # the warm time: the first search also faults the backing file in,
        # and a stop timed from a cold figure can land after a warm search
        full = min(timed_search(nv, q1, 1), timed_search(nv, q1, 1))
        best = None
        for r in range(2):
            got = stop_round(nv, full, r)
            if isinstance(got, str):
                return got
            if best is None or max(got) < max(best):
                best = got
        # bound: the stop waits for one block of work, never for a search
        took, worst = best
        if took > full / 4 or worst > full / 4:
            return ("%s took %.0f ms, QMP stalled %.0f ms, against a %.0f "
                    "ms search (the better of two rounds)" %
                    (how, took * 1e3, worst * 1e3, full * 1e3))
        return None
    return with_qemu(qt, body)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def test_delete_sq_search(qemu, tmp):
    """Delete I/O SQ while a long search runs: bounded, 08h, monitor live."""
    return cancel_test(qemu, tmp, "delete-sq")


def test_reset_search(qemu, tmp):
    """Controller reset while a long search runs: bounded, monitor live."""
    return cancel_test(qemu, tmp, "reset")


def test_delete_sq_8(qemu, tmp):
    """Delete I/O SQ with 8 long searches in flight (one per worker)."""
    return cancel_test(qemu, tmp, "delete-sq", 8)


def test_reset_8(qemu, tmp):
    """Controller reset with 8 long searches in flight."""
    return cancel_test(qemu, tmp, "reset", 8)


NVME_CMD_READ = 0x02


def test_reset_uaf(qemu, tmp):
    """A reset while block I/O is in flight and an ISP command waits in a
    full submission queue: the namespaces' drain polls the main loop, the
    queue's handler runs again and admits the search onto a request the
    reset then frees. The glue refuses ISP commands until the queues are
    gone. The search must be seen refused (its trace), QEMU must live on
    and answer a search after the reset, and a sanitizer build (none is
    built by make qemu) must report nothing."""
    img = search_backing(tmp)
    if img is None:
        return "SKIP no REIS_CLI to deploy the database with"
    # reads take 200 ms (null-co), so the drain waits while the first
    # three complete and free their requests
    drive = "driver=null-co,size=16777216,latency-ns=200000000,if=none,id=d0"
    qt = Qtest(qemu, "mdts=0,isp=on,isp-backing=" + img, tmp,
               ["-trace", "pci_nvme_err_isp_aborted", "-trace", "pci_nvme_isp_exec"],
               drive=drive)

    def body(qt):
        nv = Nvme(qt)
        full = timed_search(nv, nv.create_io_queue(2, 8), 1)
        q1 = nv.create_io_queue(1, 4)       # 4 requests, 3 entries at once
        buf = nv.alloc(PAGE)
        for i in range(3):
            nv.submit(q1, NVME_CMD_READ, NSID, (buf, 0), (i, 0, 0, 0, 0, 0),
                      ring=False)
        nv.ring(q1)
        time.sleep(0.1)
        nv.submit(q1, NVME_CMD_READ, NSID, (buf, 0), (3, 0, 0, 0, 0, 0))
        # every request holds a read: the search waits in the ring
        cid = search_cmd(nv, q1, SEARCH_NQ, 7)
        time.sleep(0.05)
        if nv.poll(q1) is not None:
            return "a read completed before the reset (latency not in effect)"
        qt.writel(BAR0 + 0x14, 0)           # reset while the reads run
        nv.wait_csts(0)
        # a search admitted during the drain would end about now
        time.sleep(full + 0.5)
        if qt.proc.poll() is not None:
            return "QEMU died after the reset (ASan report in the log?)"
        nv.reset()
        q3 = nv.create_io_queue(3, 8)
        search_cmd(nv, q3, 1, 8)
        c = nv.wait(q3, 60)
        if c is None or c[1]:
            return "search after the reset: %s" % (c,)
        qt.log.flush()
        with open(qt.log.name) as f:
            log = f.read()
        if "AddressSanitizer" in log or "runtime error" in log:
            return "sanitizer report in the QEMU log"
        # the window was hit: the search came up during the reset
        if "pci_nvme_err_isp_aborted cid %d " % cid not in log:
            return "the search was not seen during the reset (timing missed the window)"
        return None
    return with_qemu(qt, body)


def test_fair_workers(qemu, tmp):
    """One queue floods the workers with long searches, another sends one
    short search: it must start at once (a lone queue holds 6 of the 8
    workers, docs/security.md "Fair shares"), not after a long one."""
    img = search_backing(tmp)
    if img is None:
        return "SKIP no REIS_CLI to deploy the database with"
    qt = Qtest(qemu, "mdts=0,isp=on,isp-backing=" + img, tmp)

    def body(qt):
        nv = Nvme(qt)
        greedy = nv.create_io_queue(1, 32)
        polite = nv.create_io_queue(2, 8)
        full = timed_search(nv, polite, 1)
        for i in range(16):
            search_cmd(nv, greedy, SEARCH_NQ, 100 + i)
        time.sleep(min(0.2, full / 5))
        t = time.time()
        search_cmd(nv, polite, 1, 2)
        c = nv.wait(polite, 120)
        took = time.time() - t
        if c is None or c[1]:
            return "the polite search: %s" % (c,)
        done = 0
        while done < 16:
            c = nv.wait(greedy, 300)
            if c is None:
                return "greedy searches did not complete (%d of 16)" % done
            done += 1
        print("  polite one-query search beside 16 greedy 1024-query ones: %.1f ms "
              "(a greedy one alone: %.0f ms); load %s" % (took * 1e3, full * 1e3,
                                                           loadavg()))
        if took > full / 2:
            return ("the polite search took %.0f ms against a %.0f ms greedy one: "
                    "it waited for a worker" % (took * 1e3, full * 1e3))
        return None
    return with_qemu(qt, body)


ISP_OP_IDENTIFY = 0x82
ISP_OP_REIS_DB_CREATE = 0x91
ISP_OP_REIS_DB_WRITE = 0x95
ISP_OP_RF_TBL_CREATE = 0xB1
ISP_OP_RF_TBL_WRITE = 0xB5
ISP_OP_RF_TBL_COMMIT = 0xB8
ISP_OP_RF_SLS = 0xB9
NVME_SC_CAP_EXCEEDED = 0x81


class RssSampler(threading.Thread):
    """QEMU's anonymous RSS every 5 ms; keeps the peak."""

    def __init__(self, qt):
        super().__init__(daemon=True)
        self.qt = qt
        self.peak = qt.rss_anon()
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            try:
                self.peak = max(self.peak, self.qt.rss_anon())
            except OSError:
                return
            time.sleep(0.005)

    def stop(self):
        self.done.set()
        self.join(10)
        return self.peak


def test_rss_bound(qemu, tmp):
    """host_mem=192m: the budgets the guest fills with deploys and data
    driven to their limits in turn (mapping tables until controller DRAM
    refuses, the in-memory store until Capacity Exceeded, bounce buffers of
    2 MiB commands held by the stopped virtual clock); QEMU's anonymous RSS
    never grows by more than host_mem over the idle drive. (The buffer
    budget and the result table at their limits: test_isp_hostmem.)"""
    hm = 192 << 20
    qt = Qtest(qemu, "mdts=0,isp=on,isp-preset=recflash-tlc,isp-timing=delay,"
               "isp-params=host_mem=192m;;dram_bytes=24m;;blocks_per_plane=64;;"
               "slc_blocks=48;;ctrl_cmd=1000ms", tmp,
               os.environ.get("ISP_QTEST_EXTRA", "").split())

    def body(qt):
        nv = Nvme(qt)
        qs = [nv.create_io_queue(1 + i, 32) for i in range(4)]
        big = 2 << 20
        buf = nv.alloc(big)
        prp = nv.prps(buf, big)
        ident = nv.alloc(PAGE)
        base = qt.rss_anon()
        smp = RssSampler(qt)
        smp.start()
        def put(data, off=0):
            qt.write(buf + off, data)

        # controller DRAM: RecFlash tables of 200000 one-float rows (3.25 MB
        # of mapping each) until it refuses; every command waits for the
        # virtual clock (isp-timing=delay): step it far ahead each time
        def tick():
            qt.clock_step(10 ** 12)
        ntab = 0
        for t in range(1, 40):
            # isp_wire_rf_create: tid rows dim dtype(FP32) mode(RecFlash), 128 B
            cr = struct.pack("<IIIII", t, 200000, 1, 1, 3) + bytes(128 - 20)
            put(cr)
            nv.submit(qs[0], ISP_OP_RF_TBL_CREATE, NSID, prp, (len(cr) // 4, 0, 0, 0, 0, 0))
            tick()
            st = nv.wait(qs[0], 60)[1]
            if st:
                break
            qt.memset(buf, big, 0)
            for off in range(0, 800000, big):
                n = min(big, 800000 - off)
                nv.submit(qs[0], ISP_OP_RF_TBL_WRITE, NSID, prp,
                          (n // 4, 0, t, 1, off, 0))
                tick()
                if nv.wait(qs[0], 60)[1]:
                    return "table %d rows" % t
            nv.submit(qs[0], ISP_OP_RF_TBL_COMMIT, NSID, (0, 0), (0, 0, t, 0, 0, 0))
            tick()
            if nv.wait(qs[0], 60)[1]:
                return "table %d commit" % t
            ntab += 1
        if ntab < 2:
            return "only %d mapping tables deployed" % ntab
        # the in-memory store: 2 MiB DB_WRITEs of binary codes until refused
        # isp_wire_reis_create: did kind(BF) flags dim n, 160 B
        cr = struct.pack("<IIIIQ", 1, 1, 0, 1024, 1000000)
        put(cr + bytes(160 - len(cr)))
        nv.submit(qs[1], ISP_OP_REIS_DB_CREATE, NSID, prp, (40, 0, 0, 0, 0, 0))
        tick()
        st = nv.wait(qs[1], 60)[1]
        if st:
            return "DB_CREATE: 0x%x" % st
        qt.memset(buf, big, 0x5a)
        written = 0
        while True:
            nv.submit(qs[1], ISP_OP_REIS_DB_WRITE, NSID, prp,
                      (big // 4, 0, 1, 1, written, 0))
            tick()
            st = nv.wait(qs[1], 60)[1]
            if st:
                break
            written += big
        if (st & 0xff) != NVME_SC_CAP_EXCEEDED:
            return "the store's refusal: 0x%x after %d MiB" % (st, written >> 20)
        # bounce buffers: 2 MiB ECHO_C2H held by the stopped virtual clock
        for i in range(24):
            nv.submit(qs[2], ISP_OP_ECHO_C2H, NSID, prp, (big // 4, 0, i, 0, 0, 0),
                      ring=False)
        nv.ring(qs[2])
        time.sleep(1.0)
        peak = smp.stop()
        tick()
        for i in range(24):
            if nv.wait(qs[2], 60) is None:
                return "delayed echo %d never completed" % i
        grew = peak - base
        print("  host_mem 192 MiB: %d mapping tables, store refused after %d MiB, 24 "
              "bounce buffers held; QEMU anonymous RSS grew %.1f MiB at most" %
              (ntab, written >> 20, grew / 2 ** 20))
        if grew > hm:
            return "QEMU's RSS grew %.1f MiB, more than host_mem" % (grew / 2 ** 20)
        return None
    return with_qemu(qt, body)


def read_4k(nv, q, buf):
    """A 4 KiB Read of LBA 0 (512-byte LBAs: NLB 7)."""
    return nv.submit(q, NVME_CMD_READ, NSID, (buf, 0), (0, 0, 7, 0, 0, 0))


def test_ftl_delay_hold(qemu, tmp):
    """isp-timing=delay holds an ordinary Read until its modeled time
    (docs/ftl.md), to the microsecond of the clock qtest steps; a held
    Read's queue can be deleted, and the controller reset, with reads held."""
    qt = Qtest(qemu, "isp=on,isp-timing=delay", tmp)
    return with_qemu(qt, ftl_delay_hold)


def ftl_delay_hold(qt):
    nv = Nvme(qt)
    q1 = nv.create_io_queue(1, 16)
    buf = nv.alloc(PAGE)
    cid = read_4k(nv, q1, buf)
    time.sleep(0.5)
    if nv.poll(q1) is not None:
        return "a Read completed with the virtual clock standing still"
    qt.clock_step(10 * 10**6)
    c = nv.wait(q1, 10)
    if c is None or c[0] != cid or c[1] != 0:
        return "the first Read: %r" % (c,)
    m = c[2]                            # CDW0: the modeled time, ns
    if not 60000 <= m <= 10**6:
        return "modeled time %d ns of a 4 KiB read (expected tR 60 us ..)" % m
    # the same read again on the idle drive: the same modeled time
    cid = read_4k(nv, q1, buf)
    time.sleep(0.3)
    qt.clock_step(m - 2000)
    time.sleep(0.3)
    if nv.poll(q1) is not None:
        return "the second Read completed 2 us before its %d ns" % m
    qt.clock_step(4000)
    c = nv.wait(q1, 10)
    if c is None or c[0] != cid or c[1] != 0 or c[2] != m:
        return "the second Read after its %d ns: %r" % (m, c)
    # four held reads on a second queue, then that queue is deleted
    q2 = nv.create_io_queue(2, 16)
    for i in range(4):
        nv.submit(q2, NVME_CMD_READ, NSID, (buf, 0), (8 * i, 0, 7, 0, 0, 0),
                  ring=False)
    nv.ring(q2)
    time.sleep(0.5)
    if nv.poll(q2) is not None:
        return "a Read of queue 2 completed with the clock standing still"
    st = nv.delete_sq(2)
    if st:
        return "Delete I/O SQ 2 with held reads: status 0x%x" % st
    got = []
    while True:
        c = nv.poll(q2)
        if c is None:
            break
        got.append(c[1])
    if len(got) != 4 or any(x not in (0, NVME_CMD_ABORT_SQ_DEL) for x in got):
        return "held reads of the deleted queue completed as %r" % got
    # a held read at reset: the reset posts it and QEMU stays up
    read_4k(nv, q1, buf)
    time.sleep(0.3)
    nv.qt.writel(BAR0 + 0x14, 0)        # CC.EN = 0
    nv.wait_csts(0)
    return None


def test_ftl_needs_isp(qemu, tmp):
    """isp-ftl is an ISP property: given with isp=off it is refused."""
    img = os.path.join(tmp, "ns.img")
    with open(img, "wb") as f:
        f.truncate(1 << 20)
    r = subprocess.run([qemu, "-M", "pc", "-accel", "qtest", "-display", "none",
                        "-nodefaults", "-qtest", "null",
                        "-drive", "file=%s,if=none,id=d0,format=raw" % img,
                        "-device", "nvme,serial=qt0,drive=d0,isp-ftl=on"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=60)
    out = r.stdout.decode(errors="replace")
    if r.returncode == 0 or "isp-ftl need isp=on" not in out:
        return "isp-ftl=on with isp=off: exit %d, %r" % (r.returncode, out[-200:])
    return None


# ---- the standard interface: memory (SLM, CSI 03h) and compute (CP, CSI
# 04h) namespaces (docs/command-set.md section 9) ----
CS_SLM, CS_CP = 2, 3
CSS_ALL = 6                     # CC.CSS 110b: all supported I/O command sets
DNR = 0x4000
ISP_OP_IDENTIFY = 0x82
ISP_LID_ERRTEXT = 0xC2
ISP_LID_CS_PROGRAMS = 0xC3
CS_R0_SB, CS_R0_LEN = 0, 64 << 10
CS_R1_SB, CS_R1_LEN = 1 << 20, 1 << 20


class CsHost:
    """Host buffers and the few commands the CP/SLM test issues."""

    def __init__(self, nv):
        self.nv = nv
        self.buf = nv.alloc(64 << 10)
        self.q = None

    def put(self, data):
        self.nv.qt.write(self.buf, data)
        return self.nv.prps(self.buf, max(len(data), 1))

    def get(self, n):
        return self.nv.qt.read(self.buf, n)

    def identify(self, cns, nsid=0, csi=0):
        st, _ = self.nv.admin_full(0x06, nsid, (cns, csi << 24, 0, 0, 0, 0),
                                   self.nv.prps(self.buf, 4096))
        return st, self.get(4096)

    def log(self, lid, n, csi=0, off=0):
        numd = n // 4 - 1
        st, _ = self.nv.admin_full(
            0x02, 0xFFFFFFFF, (lid | (numd & 0xFFFF) << 16, numd >> 16,
                               off & 0xFFFFFFFF, off >> 32, csi << 24, 0),
            self.nv.prps(self.buf, n))
        return st, self.get(n)

    def errtext(self):
        """The newest Error Information reason (LID C2h, 128 bytes)."""
        st, b = self.log(ISP_LID_ERRTEXT, 128)
        assert st == 0, "LID C2h: status 0x%x" % st
        (count, sqid, cid, status, loc, nsid, opc, dbit, dbyte, _dig,
         msg) = struct.unpack("<QHHHHIBBHQ96s", b)
        return dict(count=count, sqid=sqid, cid=cid, status=status, loc=loc,
                    nsid=nsid, opcode=opc, data_byte=dbyte,
                    msg=msg.split(b"\0")[0].decode(errors="replace"))

    def mem(self, opc, sb, data=b"", n=0, cdw13=0):
        """Memory Read (02h, @n bytes back) / Write (05h) / Fill (04h)."""
        if opc == 0x05:
            prp, ln = self.put(data), len(data)
        elif opc == 0x02:
            prp, ln = self.nv.prps(self.buf, n), n
        else:
            prp, ln = (0, 0), n
        st, _ = self.nv.io_full(self.q, opc, CS_SLM,
                                (sb & 0xFFFFFFFF, sb >> 32, ln, cdw13, 0, 0),
                                prp)
        return st, (self.get(n) if opc == 0x02 and st == 0 else b"")

    def copy(self, dest, descs, fmt, nbyte):
        prp = self.put(b"".join(descs))
        return self.nv.io_full(self.q, 0x01, CS_SLM,
                               (dest & 0xFFFFFFFF, dest >> 32,
                                (len(descs) - 1) | fmt << 8, 0, 0, 0),
                               prp, cdw23=nbyte)[0]

    def execute(self, pind, rsid, in_len, in_off=0, out_off=0):
        return self.nv.io_full(self.q, 0x01, CS_CP,
                               (in_len, in_off, out_off, 0, 0, 0),
                               cdw23=pind | rsid << 16)


def expect(what, got, want):
    if got != want:
        raise AssertionError("%s: got %s, want %s" % (what, got, want))


def expect_err(h, what, st, want, loc=None, data_byte=None, opcode=None):
    """@st is @want, and the newest Error Information entry says so."""
    expect(what + " status", hex(st), hex(want))
    e = h.errtext()
    expect(what + " logged status", hex(e["status"]), hex(want))
    if loc is not None:
        expect(what + " parameter error location", e["loc"], loc)
    if data_byte is not None:
        expect(what + " data byte", e["data_byte"], data_byte + 1)
    if opcode is not None:
        expect(what + " logged opcode", hex(e["opcode"]), hex(opcode))
    if not e["msg"]:
        raise AssertionError(what + ": the entry has no reason")


def test_cs(qemu, tmp):
    """Identify, effects, admin and I/O commands of the SLM and CP sets."""
    qt = Qtest(qemu, "isp=on,isp-cs=on", tmp)

    def body(qt):
        nv = Nvme(qt)
        cap = qt.readq(BAR0)
        if not (cap >> 37) & 0x40:
            return "CAP.CSS lacks bit 6 (I/O command set specific): 0x%x" % cap
        nv.reset(CSS_ALL)
        h = CsHost(nv)

        # Identify: the command sets, the namespace lists, each set's data
        st, b = h.identify(0x1C)
        expect("CNS 1Ch", st, 0)
        expect("I/O command set vector 0", struct.unpack_from("<Q", b)[0],
               1 | 1 << 2 | 1 << 3 | 1 << 4)
        st, b = h.identify(0x02)
        expect("CNS 02h", (st, struct.unpack_from("<4I", b)), (0, (1, 2, 3, 0)))
        for csi, nsid in ((3, CS_SLM), (4, CS_CP)):
            st, b = h.identify(0x07, 0, csi)
            expect("CNS 07h CSI %d" % csi, (st, struct.unpack_from("<2I", b)),
                   (0, (nsid, 0)))
        st, b = h.identify(0x03, CS_CP)
        expect("CNS 03h nsid 3: a UUID, then a CSI descriptor",
               (st, b[0:2], b[20:24]), (0, bytes((3, 16)), bytes((4, 1, 0, 0))))
        expect("CNS 03h nsid 3: CSI 04h", b[24], 4)
        st, b = h.identify(0x05, CS_CP, 4)
        expect("CNS 05h CP", st, 0)
        maxact, maxmemrs, mrsg, maxmemr = struct.unpack_from("<HHHB", b)
        expect("CP maxact/maxmemrs/maxmemr", (maxact, maxmemrs, maxmemr),
               (5, 64, 16))
        nprogs, slm_nsid, max_param = struct.unpack_from("<3I", b, 3072)
        expect("CP nprogs/slm_nsid/max_param", (nprogs, slm_nsid, max_param),
               (5, CS_SLM, 4096))
        st, b = h.identify(0x05, CS_SLM, 3)
        expect("CNS 05h SLM", st, 0)
        msz, _muse, msrc, _mssrl, _mcl, desfmts, gran = \
            struct.unpack_from("<QQIIQHB", b)
        nvm_nsid, cp_nsid, max_rw = struct.unpack_from("<3I", b, 3072)
        expect("SLM msrc/desfmts/gran", (msrc, desfmts, gran),
               (127, 1 << 2 | 1 << 4 | 1 << 15, 2))
        expect("SLM nvm/cp nsid", (nvm_nsid, cp_nsid), (1, CS_CP))
        if msz < 8 << 20 or max_rw < 4096:
            return "SLM msz %d max_rw %d" % (msz, max_rw)
        st, _ = h.identify(0x05, CS_SLM, 4)
        expect("CNS 05h with the wrong CSI", st, 0x0002 | DNR)
        st, b = h.identify(0x08, CS_CP)
        expect("CNS 08h nsid 3: NSTAT ready", (st, b[14]), (0, 1))

        # Commands Supported and Effects, per command set
        for csi, opcs in ((3, (0x01, 0x02, 0x04, 0x05)), (4, (0x01,))):
            st, b = h.log(0x05, 4096, csi)
            expect("LID 05h CSI %d" % csi, st, 0)
            acs = struct.unpack_from("<256I", b)
            iocs = struct.unpack_from("<256I", b, 1024)
            for opc in (0x85, 0x88, 0x89):
                if not acs[opc] & 1:
                    return "LID 05h: admin opcode %02xh not supported" % opc
            got = tuple(o for o in range(256) if iocs[o] & 1)
            expect("LID 05h CSI %d I/O opcodes" % csi, got, opcs)

        # admin commands of the CP set
        st, _ = nv.admin_full(0x85, CS_CP, (0, 0, 0, 0, 0, 0))
        expect_err(h, "Load Program", st, 0x019A | DNR, loc=40, opcode=0x85)
        st, _ = nv.admin_full(0x85, CS_CP, (9, 0, 0, 0, 0, 0))
        expect_err(h, "Load Program PIND 9", st, 0x018F | DNR, loc=40)
        h.q = nv.create_io_queue(1, 16)
        st, _ = h.execute(4, 1, 40)
        expect_err(h, "Execute before activation", st, 0x0198 | DNR, loc=8,
                   opcode=0x01)
        for pind in range(5):
            st, _ = nv.admin_full(0x88, CS_CP, (pind | 1 << 16, 0, 0, 0, 0, 0))
            expect("activate %d" % pind, st, 0)
        st, _ = nv.admin_full(0x88, CS_CP, (5 | 1 << 16, 0, 0, 0, 0, 0))
        expect_err(h, "activate PIND 5", st, 0x018F | DNR, loc=40)
        mrd = struct.pack("<IIQ16x", CS_SLM, CS_R0_LEN, CS_R0_SB) + \
            struct.pack("<IIQ16x", CS_SLM, CS_R1_LEN, CS_R1_SB)
        st, dw0 = nv.admin_full(0x89, CS_CP, (0, 2, 0, 0, 0, 0), h.put(mrd))
        expect("MRS create", st, 0)
        rsid = dw0 & 0xFFFF
        if not rsid:
            return "MRS create returned RSID 0"
        bad = struct.pack("<IIQ16x", 1, 4096, 0)
        st, _ = nv.admin_full(0x89, CS_CP, (0, 1, 0, 0, 0, 0), h.put(bad))
        expect_err(h, "MRS create on the NVM namespace", st, 0x018B | DNR,
                   data_byte=0)
        over = struct.pack("<IIQ16x", CS_SLM, 8192, 0) + \
            struct.pack("<IIQ16x", CS_SLM, 8192, 4096)
        st, _ = nv.admin_full(0x89, CS_CP, (0, 2, 0, 0, 0, 0), h.put(over))
        expect("MRS create overlapping", hex(st), hex(0x0197 | DNR))

        # Memory Write / Read / Fill / Copy
        rnd = random.Random(28)
        pat = bytes(rnd.getrandbits(8) for _ in range(8192))
        expect("Memory Write", h.mem(0x05, 256 << 10, pat)[0], 0)
        st, back = h.mem(0x02, 256 << 10, n=8192)
        expect("Memory Read status", st, 0)
        if back != pat:
            return "Memory Read returned other bytes than written"
        expect("Memory Fill", h.mem(0x04, 512 << 10, n=256,
                                    cdw13=0xDEADBEEF)[0], 0)
        st, back = h.mem(0x02, 512 << 10, n=256)
        expect("Fill pattern", back, struct.pack("<I", 0xDEADBEEF) * 64)
        st, back = h.mem(0x02, 768 << 10, n=64)
        expect("never written reads 0", back, bytes(64))
        src = struct.pack("<IIQIHH8x", CS_SLM, 0, 256 << 10, 8192, 0, 0)
        expect("Memory Copy 4h", h.copy(640 << 10, [src], 4, 8192), 0)
        expect("Memory Copy 4h bytes", h.mem(0x02, 640 << 10, n=8192)[1], pat)
        blocks = bytes(rnd.getrandbits(8) for _ in range(4096))
        st, _ = nv.io_full(h.q, 0x01, NSID, (8, 0, 7, 0, 0, 0), h.put(blocks))
        expect("NVM Write", st, 0)
        lba = struct.pack("<IIQH4xH8x", NSID, 0, 8, 7, 0)
        expect("Memory Copy 2h", h.copy(896 << 10, [lba], 2, 4096), 0)
        expect("Memory Copy 2h bytes", h.mem(0x02, 896 << 10, n=4096)[1],
               blocks)
        lba_far = struct.pack("<IIQH4xH8x", NSID, 0, (16 << 20) // 512, 0, 0)
        expect_err(h, "Memory Copy 2h past the namespace",
                   h.copy(896 << 10, [lba_far], 2, 512), 0x0080 | DNR,
                   data_byte=8)
        st, _ = h.mem(0x02, msz, n=4096)
        expect_err(h, "Memory Read past msz", st, 0x0002 | DNR, loc=40,
                   opcode=0x02)
        st, _ = h.mem(0x05, 2, b"abcd")
        expect_err(h, "Memory Write SB not a dword", st, 0x0002 | DNR, loc=40)
        expect_err(h, "Memory Copy NBYTE != ranges",
                   h.copy(640 << 10, [src], 4, 4096), 0x0002 | DNR, loc=8)
        expect_err(h, "Memory Copy format 0h",
                   h.copy(640 << 10, [src], 0, 8192), 0x0002 | DNR, loc=49)

        # Execute Program: isp-manage runs the vendor Identify; the same bytes
        hdr = struct.pack("<B3x6I3I", ISP_OP_IDENTIFY, 1024, 0, 0, 0, 0, 0,
                          0, 4096, NSID)
        expect("write the program's input", h.mem(0x05, CS_R0_SB, hdr)[0], 0)
        st, dw0 = h.execute(4, rsid, len(hdr))
        expect("Execute isp-manage", st, 0)
        if dw0 == 0:
            return "Execute Program returned no modeled time"
        st, out = h.mem(0x02, CS_R1_SB, n=4096)
        st2, _ = nv.io_full(h.q, ISP_OP_IDENTIFY, NSID, (1024, 0, 0, 0, 0, 0),
                            nv.prps(h.buf, 4096))
        expect("vendor Identify", st2, 0)
        ven = h.get(4096)
        # dram_used (byte 80) grew by the 64 KiB chunk backing the output,
        # written after the program's Identify: the rest is the same
        du_out, du_ven = (struct.unpack_from("<Q", x, 80)[0] for x in (out, ven))
        expect("dram_used: the output's backing chunk", du_ven - du_out, 64 << 10)
        out, ven = out[:80] + out[88:], ven[:80] + ven[88:]
        if out[:4] != b"ISP1" or out != ven:
            diff = [i for i in range(len(out)) if out[i] != ven[i]]
            return ("the program's Identify differs from the vendor "
                    "command's at bytes %s (%s vs %s)" %
                    (diff[:8], out[diff[0]:diff[0] + 8].hex(),
                     ven[diff[0]:diff[0] + 8].hex()) if diff else "no ISP1")
        st, _ = h.execute(4, 77, len(hdr))
        expect_err(h, "Execute RSID 77", st, 0x018D | DNR, loc=10)
        st, _ = h.execute(4, rsid, len(hdr), out_off=CS_R1_LEN)
        expect_err(h, "Execute output offset past range 1", st, 0x0002 | DNR,
                   loc=48)
        bad_hdr = struct.pack("<B3x6I3I", 0x99, 0, 0, 0, 0, 0, 0, 0, 0, NSID)
        h.mem(0x05, CS_R0_SB, bad_hdr)
        st, _ = h.execute(4, rsid, len(bad_hdr))
        expect_err(h, "isp-manage given SEARCH", st, 0x018E | DNR,
                   data_byte=0)

        # the program table (LID C3h) counts the runs
        st, b = h.log(ISP_LID_CS_PROGRAMS, 5 * 64)
        expect("LID C3h", st, 0)
        name = b[4 * 64 + 16:4 * 64 + 48].split(b"\0")[0]
        execs = struct.unpack_from("<Q", b, 4 * 64 + 56)[0]
        expect("program 4", (name, b[4 * 64] & 7), (b"isp-manage", 2 | 4))
        if execs < 1:
            return "program 4 counted %d runs" % execs

        # deleting the set; then it is gone
        st, _ = nv.admin_full(0x89, CS_CP, (1 | rsid << 16, 0, 0, 0, 0, 0))
        expect("MRS delete", st, 0)
        st, _ = h.execute(4, rsid, len(hdr))
        expect("Execute on a deleted set", hex(st), hex(0x018D | DNR))

        # CC.CSS = NVM only: the two namespaces take no I/O commands
        nv.reset(0)
        h.q = nv.create_io_queue(1, 16)
        st, _ = h.mem(0x02, 0, n=64)
        expect("Memory Read under CC.CSS 000b", hex(st), hex(0x0001 | DNR))
        st, _ = nv.io_full(h.q, ISP_OP_IDENTIFY, NSID, (1024, 0, 0, 0, 0, 0),
                           nv.prps(h.buf, 4096))
        expect("vendor command under CC.CSS 000b", st, 0)
        return None

    try:
        return with_qemu(qt, body)
    except AssertionError as e:
        return str(e)


def test_cs_off(qemu, tmp):
    """isp-cs=off: no memory or compute namespace, no CP admin commands."""
    qt = Qtest(qemu, "isp=on,isp-cs=off", tmp)

    def body(qt):
        nv = Nvme(qt)
        nv.reset(CSS_ALL)
        h = CsHost(nv)
        st, b = h.identify(0x02)
        expect("CNS 02h", (st, struct.unpack_from("<2I", b)), (0, (1, 0)))
        st, _ = nv.admin_full(0x88, CS_CP, (1 << 16, 0, 0, 0, 0, 0))
        expect("Program Activation without the set", hex(st),
               hex(0x0001 | DNR))
        h.q = nv.create_io_queue(1, 16)
        st, _ = h.mem(0x02, 0, n=64)
        # QEMU's answer for an inactive NSID
        expect("Memory Read to nsid 2", hex(st), hex(0x0002 | DNR))
        return None

    try:
        return with_qemu(qt, body)
    except AssertionError as e:
        return str(e)


# A burst of COPY_STALL_CMDS 2 MiB commands rung at once (192 MiB: a lone
# queue's share of the 256 MiB bounce budget at host_mem=16g). Copied whole
# under the BQL (before the copy pump) the submission queue's handler held
# the main loop for most of an ECHO_H2C burst (2026-12-05, load 13-14: a
# QMP round trip of 2267 ms in a 2332 ms burst); in 128 KiB slices the
# worst round trip is a small part of the burst. The bound is relative, as
# for the stop tests: a quarter of the burst's own time, in the better of
# each kind's rounds (the BQL-held copy stalled every round; at load 5 one
# C2H round of four took a 292 ms round trip in 688 ms where the other
# three took 27-45 ms: the host took the cores, not the glue).
COPY_STALL_CMDS = 96
COPY_STALL_ROUNDS = 2


def test_copy_stall(qemu, tmp):
    """2 MiB copies in slices: the main loop answers QMP during 192 MiB."""
    qt = Qtest(qemu, "mdts=0,isp=on,isp-params=host_mem=16g", tmp,
               os.environ.get("ISP_QTEST_EXTRA", "").split())
    return with_qemu(qt, copy_stall)


def copy_burst(nv, q, prp, opc, big):
    """COPY_STALL_CMDS commands of @big bytes rung at once; their statuses."""
    for _ in range(COPY_STALL_CMDS):
        nv.submit(q, opc, NSID, prp, (big // 4, 0, 5, 0, 0, 0), ring=False)
    nv.ring(q)
    st = []
    for _ in range(COPY_STALL_CMDS):
        c = nv.wait(q, 120)
        if c is None:
            raise RuntimeError("opcode 0x%x: %d of %d completed"
                               % (opc, len(st), COPY_STALL_CMDS))
        st.append(c[1])
    return st


def copy_stall(qt):
    nv = Nvme(qt)
    q = nv.create_io_queue(1, 128)
    big = 2 << 20
    buf = nv.alloc(big)
    prp = nv.prps(buf, big)
    pinger = QmpPinger(qt.qmp_path)
    pinger.start()
    bursts = []
    try:
        for _ in range(COPY_STALL_ROUNDS):
            qt.memset(buf, big, 0)
            for opc in (ISP_OP_ECHO_C2H, ISP_OP_ECHO_H2C):
                pinger.worst = 0.0
                t = time.time()
                bad = [s for s in copy_burst(nv, q, prp, opc, big) if s]
                bursts.append((opc, time.time() - t, pinger.worst))
                if bad and opc == ISP_OP_ECHO_C2H:
                    return "ECHO_C2H 2 MiB: status 0x%x" % bad[0]
                if bad:
                    return ("ECHO_H2C of what ECHO_C2H wrote: status 0x%x "
                            "(a slice copied wrong)" % bad[0])
                if (opc == ISP_OP_ECHO_C2H and
                        qt.read(buf + big - 16, 16) == bytes(16)):
                    return "ECHO_C2H: the last 16 bytes never arrived"
    finally:
        pinger.stop()
    for opc, secs, worst in bursts:
        print("    copy-stall: %s burst %.0f ms, worst QMP round trip %.1f ms"
              % ("C2H" if opc == ISP_OP_ECHO_C2H else "H2C", secs * 1e3,
                 worst * 1e3))
    if pinger.count < 10:
        return "only %d QMP pings answered" % pinger.count
    for kind in (ISP_OP_ECHO_C2H, ISP_OP_ECHO_H2C):
        runs = [(worst / secs, secs, worst) for opc, secs, worst in bursts
                if opc == kind]
        share, secs, worst = min(runs)
        if share > 0.25:
            return ("the main loop stalled %.1f ms during a %.0f ms burst of "
                    "2 MiB %s copies in its best of %d rounds (bound: a "
                    "quarter of it)" % (worst * 1e3, secs * 1e3,
                                        "C2H" if kind == ISP_OP_ECHO_C2H
                                        else "H2C", len(runs)))
    return None


TESTS = {
    "ftl-delay-hold": test_ftl_delay_hold,
    "ftl-needs-isp": test_ftl_needs_isp,
    "lost-wakeup": test_lost_wakeup,
    "delete-sq-during-search": test_delete_sq_search,
    "reset-during-search": test_reset_search,
    "delete-sq-8-searches": test_delete_sq_8,
    "reset-8-searches": test_reset_8,
    "reset-during-block-io": test_reset_uaf,
    "fair-workers": test_fair_workers,
    "rss-bound": test_rss_bound,
    "cs-slm-cp": test_cs,
    "cs-off": test_cs_off,
    "copy-stall": test_copy_stall,
}


def main():
    qemu, results = sys.argv[1], sys.argv[2]
    names = sys.argv[3:] or list(TESTS)
    os.makedirs(results, exist_ok=True)
    counts = [0, 0, 0]
    for name in names:
        tmp = tempfile.mkdtemp(prefix="isp-qtest.")
        start = time.time()
        try:
            why = TESTS[name](qemu, tmp)
        except Exception as e:          # a harness error is a failure
            why = "%s: %s" % (type(e).__name__, e)
        secs = time.time() - start
        log = os.path.join(tmp, "qemu.log")
        if os.path.exists(log):
            os.replace(log, os.path.join(results, "qtest.isp.%s.log" % name))
        if why is None:
            counts[0] += 1
            print("PASS qtest/isp/%s (%.1f s)" % (name, secs))
        elif why.startswith("SKIP "):
            counts[2] += 1
            print("SKIP qtest/isp/%s: %s" % (name, why[5:]))
        else:
            counts[1] += 1
            print("FAIL qtest/isp/%s: %s" % (name, why))
        subprocess.call(["rm", "-rf", tmp])
        sys.stdout.flush()
    print("isp-qtest: %d %d %d" % tuple(counts))
    return 1 if counts[1] else 0


if __name__ == "__main__":
    sys.exit(main())
