"""Writes each GpuBatch packet of the given trace files to its own file in
OUT_DIR (named by its SHA-1, so repeats collapse): the GpuBatch decoder's seed
corpus. A trace file is a sequence of field-1 length-delimited TracePackets;
GpuBatch is the packet's field 9.
usage: split_packets.py OUT_DIR TRACE..."""
import hashlib
import os
import sys

GPU_BATCH_FIELD = 9


def varint(data, pos):
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(packet):
    """(field number, wire type) of each top-level field of a message."""
    pos = 0
    while pos < len(packet):
        tag, pos = varint(packet, pos)
        number, wire = tag >> 3, tag & 7
        yield number, wire
        if wire == 0:
            _, pos = varint(packet, pos)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = varint(packet, pos)
            pos += length
        elif wire == 5:
            pos += 4
        else:
            raise ValueError(f"wire type {wire}: not a packet vprof writes")


def packets(trace):
    pos = 0
    while pos < len(trace):
        tag, pos = varint(trace, pos)
        assert tag == 0x0A, f"tag {tag:#x} at byte {pos}: not a trace file"
        length, pos = varint(trace, pos)
        yield trace[pos:pos + length]
        pos += length


def main():
    out_dir, traces = sys.argv[1], sys.argv[2:]
    for path in traces:
        with open(path, "rb") as f:
            for packet in packets(f.read()):
                if (GPU_BATCH_FIELD, 2) in fields(packet):
                    name = hashlib.sha1(packet).hexdigest()
                    with open(os.path.join(out_dir, name), "wb") as out:
                        out.write(packet)


if __name__ == "__main__":
    main()
