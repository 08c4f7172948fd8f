#!/usr/bin/env python3
# qemu-fuzz-seeds.py - the seed corpus of the glue's fuzz run
# (scripts/qemu-fuzz.sh), in the input format of QEMU's generic-fuzz target
# (tests/qtest/fuzz/generic_fuzz.c in QEMU 10.0: operations separated by
# "FUZZ", the first byte of each picks the operation, modulo 10).
#
#   qemu-fuzz-seeds.py write DIR    one file per seed into DIR
#   qemu-fuzz-seeds.py decode FILE  the operations of an input, one a line
#
# generic-fuzz knows nothing of NVMe: it writes the nvme device's registers
# (MMIO region 0 of the fuzzed objects is the register/doorbell page) and
# fills every DMA read the device makes with the current DMA pattern, one
# pattern per read in turn. So a seed enables the controller (admin queues
# in RAM), rings doorbells, and supplies each submission queue entry (and
# its data) as a pattern: from there libFuzzer mutates opcodes, fields,
# lengths and data. The seeds reach every ISP entry point: vendor I/O
# commands (ECHO both ways, IDENTIFY, STATS, REIS and RecFlash creates and a
# search), the vendor and Error Information log pages, the standard
# interface's admin (Program Activation, Memory Range Set) and I/O
# commands (Memory Write/Read/Fill), a controller reset and an SQ deletion
# with ISP commands in flight, and a 256 KiB transfer through a PRP list.
import os
import struct
import sys

SEP = b"FUZZ"
OP_READ, OP_WRITE, OP_ADD_PATTERN, OP_CLEAR_PATTERNS, OP_CLOCK_STEP = \
    2, 3, 7, 8, 9
OP_NAMES = {0: "in", 1: "out", 2: "read", 3: "write", 4: "pci_read",
            5: "pci_write", 6: "disable_pci", 7: "add_dma_pattern",
            8: "clear_dma_patterns", 9: "clock_step"}
SIZES = {1: 0, 2: 1, 4: 2, 8: 3}

# guest RAM the seeds use (generic-fuzz gives the machine 512 MiB)
ASQ, ACQ, IOCQ, IOSQ = 0x100000, 0x110000, 0x120000, 0x130000
DATA, DATA2, LIST = 0x200000, 0x201000, 0x1F0000
QSIZE = 32
NSID, CS_SLM, CS_CP = 1, 2, 3
NVME_SG_PAGE = 4096


def write(off, value, size=4):
    return bytes([OP_WRITE]) + struct.pack("<BBxxIQ", SIZES[size], 0, off,
                                           value)


def read(off, size=4):
    return bytes([OP_READ]) + struct.pack("<BBxxI", SIZES[size], 0, off)


def pattern(data):
    return bytes([OP_ADD_PATTERN, 0, 0]) + data


def clear():
    return bytes([OP_CLEAR_PATTERNS])


def clock():
    return bytes([OP_CLOCK_STEP])


def sqe(opc, nsid=0, prp1=0, prp2=0, cdw=(0,) * 6, cid=1):
    return struct.pack("<IIQQQQ6I", opc | cid << 16, nsid, 0, 0, prp1, prp2,
                       *cdw)


def doorbell(qid, tail):
    return write(0x1000 + 8 * qid, tail)


class Seed:
    """The operations of one input; admin and I/O queue tails."""

    def __init__(self, css=0):
        self.ops = [
            write(0x24, (QSIZE - 1) << 16 | (QSIZE - 1)),      # AQA
            write(0x28, ASQ, 8),
            write(0x30, ACQ, 8),
            write(0x14, 1 | css << 4 | 6 << 16 | 4 << 20),     # CC.EN
            read(0x1C),                                         # CSTS
        ]
        self.tail = {0: 0, 1: 0}

    def submit(self, qid, entry, *data):
        """Ring @qid for @entry; each of @data feeds the next DMA read."""
        self.ops.append(clear())
        for d in (entry,) + data:
            self.ops.append(pattern(d))
        self.tail[qid] = (self.tail[qid] + 1) % QSIZE
        self.ops.append(doorbell(qid, self.tail[qid]))

    def admin(self, opc, nsid=0, prp1=0, prp2=0, cdw=(0,) * 6, *data):
        self.submit(0, sqe(opc, nsid, prp1, prp2, cdw, self.tail[0] + 1),
                    *data)

    def io(self, opc, nsid=NSID, prp1=0, prp2=0, cdw=(0,) * 6, *data):
        self.submit(1, sqe(opc, nsid, prp1, prp2, cdw, self.tail[1] + 1),
                    *data)

    def io_queue(self):
        self.admin(0x05, 0, IOCQ, 0, ((QSIZE - 1) << 16 | 1, 1, 0, 0, 0, 0))
        self.admin(0x01, 0, IOSQ, 0, ((QSIZE - 1) << 16 | 1, 1 << 16 | 1,
                                      0, 0, 0, 0))

    def settle(self, n=4):
        """Give the ISP workers time: register reads and clock steps."""
        for _ in range(n):
            self.ops.append(clock())
            self.ops.append(read(0x1C))

    def bytes(self):
        for op in self.ops:
            assert SEP not in op, op
        return SEP.join(self.ops)


def log(s, lid, n, off=0):
    numd = n // 4 - 1
    s.admin(0x02, 0xFFFFFFFF, DATA, DATA2 if n > NVME_SG_PAGE else 0,
            (lid | (numd & 0xFFFF) << 16, numd >> 16, off, 0, 0, 0))


def seeds():
    out = {}

    s = Seed()
    s.io_queue()
    s.io(0x86, NSID, DATA, 0, (1024, 0, 5, 0, 0, 0))           # ECHO_C2H 4K
    s.settle()
    out["echo-c2h"] = s

    s = Seed()
    s.io_queue()
    # ECHO_H2C 8 KiB: PRP1 + PRP2, the data is the second pattern
    s.io(0x81, NSID, DATA, DATA2, (2048, 0, 5, 0, 0, 0),
         bytes(range(64)))
    s.settle()
    out["echo-h2c"] = s

    s = Seed()
    s.io_queue()
    s.io(0x82, NSID, DATA, 0, (1024, 0, 0, 0, 0, 0))           # IDENTIFY
    s.io(0x8A, NSID, DATA, 0, (1024, 0, 1, 0, 0, 0))           # STATS, reset
    s.io(0x80, NSID)                                           # NOOP
    s.settle()
    out["identify-stats"] = s

    s = Seed()
    for lid, n in ((0xC0, 4096), (0xC1, 4096), (0x01, 512), (0xC2, 128)):
        log(s, lid, n)
    log(s, 0xC1, 8192, 4096)                                   # past the end
    s.settle()
    out["log-pages"] = s

    s = Seed()
    s.io_queue()
    # REIS_DB_CREATE (160 B) then a SEARCH of no database (header + query)
    s.io(0x91, NSID, DATA, 0, (40, 0, 0, 0, 0, 0),
         struct.pack("<IIII", 512, 1000, 1, 0) + bytes(144))
    s.io(0x99, NSID, DATA, 0, (32, 0, 1, 0, 0, 0),
         struct.pack("<10IQQ", 1, 1, 10, 8, 0, 0, 0, 0, 0, 512, 0, 0) +
         bytes(56))
    s.settle(8)
    out["reis"] = s

    s = Seed()
    s.io_queue()
    # RF_TBL_CREATE (128 B), TBL_LIST, RESULT_RELEASE of no ticket
    s.io(0xB1, NSID, DATA, 0, (32, 0, 0, 0, 0, 0),
         struct.pack("<IIII", 64, 1000, 4, 0) + bytes(112))
    s.io(0xB2, NSID, DATA, 0, (1024, 0, 0, 0, 0, 0))
    s.io(0xA4, NSID, 0, 0, (0, 0, 3, 0, 0, 0))
    s.settle(8)
    out["recflash"] = s

    s = Seed(css=6)
    for pind in range(2):                                      # activation
        s.admin(0x88, CS_CP, 0, 0, (pind | 1 << 16, 0, 0, 0, 0, 0))
    # Memory Range Set create: one 64 KiB range of the SLM namespace
    s.admin(0x89, CS_CP, DATA, 0, (0, 1, 0, 0, 0, 0),
            struct.pack("<IIQ16x", CS_SLM, 64 << 10, 0))
    s.io_queue()
    s.io(0x05, CS_SLM, DATA, 0, (0, 0, 256, 0, 0, 0), b"\xa5" * 64)
    s.io(0x02, CS_SLM, DATA, 0, (0, 0, 256, 0, 0, 0))
    s.io(0x04, CS_SLM, 0, 0, (0, 0, 4096, 0x5a5a5a5a, 0, 0))
    log(s, 0xC3, 4096)
    s.settle()
    out["cs-slm-cp"] = s

    s = Seed()
    s.io_queue()
    # 256 KiB ECHO_C2H through a PRP list: its entries come from a pattern
    # that names one page again and again; then CC.EN = 0 at once
    s.io(0x86, NSID, DATA, LIST, (64 << 10, 0, 9, 0, 0, 0),
         struct.pack("<Q", DATA2))
    s.io(0x81, NSID, DATA, LIST, (64 << 10, 0, 9, 0, 0, 0),
         struct.pack("<Q", DATA2), bytes(range(256)))
    s.ops.append(write(0x14, 0))                               # reset
    s.settle()
    out["reset-inflight"] = s

    s = Seed()
    s.io_queue()
    for seed in range(3):
        s.io(0x86, NSID, DATA, 0, (1024, 0, seed, 0, 0, 0))
    s.admin(0x00, 0, 0, 0, (1, 0, 0, 0, 0, 0))                 # Delete SQ 1
    s.settle()
    out["delete-sq-inflight"] = s
    return out


def decode(data):
    lines = []
    for cmd in data.split(SEP):
        if not cmd:
            continue
        op = cmd[0] % 10
        arg = cmd[1:]
        name = OP_NAMES[op]
        if op == OP_WRITE and len(arg) >= 16:
            size, base, off, val = struct.unpack_from("<BBxxIQ", arg)
            lines.append("write size=%d base=%d off=0x%x value=0x%x"
                         % (size % 4, base, off, val))
        elif op == OP_READ and len(arg) >= 8:
            size, base, off = struct.unpack_from("<BBxxI", arg)
            lines.append("read size=%d base=%d off=0x%x" % (size % 4, base,
                                                            off))
        elif op == OP_ADD_PATTERN and len(arg) >= 3:
            lines.append("add_dma_pattern len=%d %s" % (len(arg) - 2,
                                                        arg[2:].hex()))
        else:
            lines.append(name)
    return lines


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "decode"):
        sys.stderr.write("usage: qemu-fuzz-seeds.py write DIR | decode FILE\n")
        return 2
    if sys.argv[1] == "decode":
        with open(sys.argv[2], "rb") as f:
            print("\n".join(decode(f.read())))
        return 0
    os.makedirs(sys.argv[2], exist_ok=True)
    for name, s in sorted(seeds().items()):
        with open(os.path.join(sys.argv[2], "seed-" + name), "wb") as f:
            f.write(s.bytes())
    return 0


if __name__ == "__main__":
    sys.exit(main())
