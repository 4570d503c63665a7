#!/usr/bin/env python3
# Counts where every byte of the loss benchmark's reliable-udp connections goes, from a tcpdump capture of lo.
#
# Usage: wire-census.py CAPTURE.pcap [--json]
#   The capture: `ip netns exec rudp-loss-PID tcpdump -i lo -s 2000 -w CAPTURE.pcap udp` beside a `loss` run
#   (tcpdump on lo sees every datagram once, at transmit, before the nftables input hook drops it: the same
#   bytes the benchmark's `wire` counter counts). Only plain (unencrypted) frames are decoded (the benchmark's
#   defaults); ENet's and KCP's datagrams are not this format and are left out.
#
# Per connection (one client port to one server port) and per direction it counts datagrams and IP bytes by
# kind: handshake (REQUEST/CHALLENGE/RESPONSE/DENIED), KEEPALIVE, DISCONNECT, ack-only PAYLOAD (no message
# frames), data PAYLOAD split into first sends and resends of a message (by channel and id), and the
# packet-header bytes above the 4-byte minimum (ack_bits bytes present, 16-bit ack). A data packet counts as
# delivered when a later header of the other direction acknowledges it (ack or ack_bits: 33 sequences of
# cover (bit i: sequence ack - i, bit 0 the ack itself), so a delivered packet whose every ack was lost is practically impossible at these rates); a resend is
# spurious when an earlier carrier of the same message was delivered. A resend counts as "after evidence" when,
# between the previous carrier's send and the resend, a delivered packet of the other direction had arrived
# acknowledging a newer packet of this direction while leaving the carrier out (what fast recovery acts on),
# else as "timer". The benchmark's measurements are the connections with the fewest distinct message ids that
# are not the peers' own 2,000-event warm-ups; the script prints every connection and marks the warm-ups.
import json
import struct
import sys
from collections import defaultdict

HANDSHAKE = {1: "request", 2: "challenge", 3: "response", 4: "denied"}


def packets(path):
    with open(path, "rb") as f:
        gh = f.read(24)
        magic = struct.unpack("<I", gh[:4])[0]
        endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        nano = magic in (0xA1B23C4D, 0x4D3CB2A1)
        link = struct.unpack(endian + "I", gh[20:24])[0]
        while True:
            h = f.read(16)
            if len(h) < 16:
                return
            sec, frac, incl, orig = struct.unpack(endian + "IIII", h)
            data = f.read(incl)
            t = sec + frac / (1e9 if nano else 1e6)
            off = 14 if link == 1 else (16 if link == 113 else 0)
            ver = data[off] >> 4
            if ver == 4:
                ihl = (data[off] & 0xF) * 4
                iplen = struct.unpack(">H", data[off + 2:off + 4])[0]
                if data[off + 9] != 17:
                    continue
                u = off + ihl
            elif ver == 6:
                iplen = 40 + struct.unpack(">H", data[off + 4:off + 6])[0]
                if data[off + 6] != 17:
                    continue
                u = off + 40
            else:
                continue
            sport, dport, ulen = struct.unpack(">HHH", data[u:u + 6])
            yield t, sport, dport, iplen, data[u + 8:u + ulen]


def header(body):
    """Packet-layer header of a PAYLOAD body: (sequence, ack, ack_bits, header length) or None for a fragment."""
    prefix = body[0]
    if prefix & 1:
        return None
    seq = struct.unpack("<H", body[1:3])[0]
    p = 3
    if prefix & 0x20:
        ack = (seq - body[3]) & 0xFFFF
        p = 4
    else:
        ack = struct.unpack("<H", body[3:5])[0]
        p = 5
    bits = 0
    for n in range(4):
        if prefix & (2 << n):
            b = body[p]
            p += 1
        else:
            b = 0xFF
        bits |= b << (8 * n)
    return seq, ack, bits, p


def frames(payload):
    """(channel, id) of every message frame of a regular packet's payload (slices as (channel, id, index))."""
    out = []
    p = 0
    ch = cid = None
    while p < len(payload):
        b = payload[p]
        t = b >> 6
        if t == 0:
            ch = b & 0x3F
            cid = struct.unpack("<H", payload[p + 1:p + 3])[0]
            p += 3
            n, p = varint(payload, p)
            out.append((ch, cid))
            p += n
        elif t == 1:
            cid = (cid + 1) & 0xFFFF
            n = b & 0x3F
            p += 1
            if n == 63:
                m, p = varint(payload, p)
                n = 63 + m
            out.append((ch, cid))
            p += n
        elif t == 2:
            ch = b & 0x3F
            cid = struct.unpack("<H", payload[p + 1:p + 3])[0]
            p += 3
            total, p = varint(payload, p)
            size, p = varint(payload, p)
            index, p = varint(payload, p)
            n = min(size, total - index * size)
            out.append((ch, cid, index))
            p += n
        else:  # LAST (protocol version 2): a whole message running to the payload's end
            ch = b & 0x3F
            cid = struct.unpack("<H", payload[p + 1:p + 3])[0]
            out.append((ch, cid))
            break
    return out


def varint(b, p):
    v = s = 0
    while True:
        x = b[p]
        p += 1
        v |= (x & 0x7F) << s
        s += 7
        if not x & 0x80:
            return v, p


def census(path):
    conns = {}
    for t, sport, dport, iplen, udp in packets(path):
        if not udp or udp[0] not in range(1, 8):
            continue
        if udp[0] == 1:
            key = (sport, dport)  # client, server
        elif (sport, dport) in conns:
            key = (sport, dport)
        elif (dport, sport) in conns:
            key = (dport, sport)
        else:
            continue
        c = conns.setdefault(key, {"pkts": [], "start": t})
        c["pkts"].append((t, 0 if (sport, dport) == key else 1, iplen, udp))
    return [analyse(k, c) for k, c in sorted(conns.items(), key=lambda kv: kv[1]["start"])]


def analyse(key, c):
    dirs = [defaultdict(int), defaultdict(int)]
    sent = [[], []]  # per direction: (time, seq, data?, messages) of PAYLOAD packets
    for t, d, iplen, udp in c["pkts"]:
        s = dirs[d]
        kind = udp[0]
        s["datagrams"] += 1
        s["bytes"] += iplen
        if kind in HANDSHAKE:
            s["handshake_n"] += 1
            s["handshake_b"] += iplen
        elif kind == 5:
            s["keepalive_n"] += 1
            s["keepalive_b"] += iplen
        elif kind == 7:
            s["disconnect_n"] += 1
            s["disconnect_b"] += iplen
        else:
            body = udp[5:]
            if not body:
                s["empty_payload_n"] += 1
                continue
            h = header(body)
            if h is None:
                s["fragment_n"] += 1
                s["fragment_b"] += iplen
                continue
            seq, ack, bits, hl = h
            s["header_extra_b"] += hl - 4
            if not body[0] & 0x20:
                s["ack16_n"] += 1
            s["ackbits_b"] += bin(body[0] & 0x1E).count("1")
            msgs = frames(body[hl:])
            sent[d].append((t, seq, ack, bits, msgs, iplen))
            if msgs:
                s["data_n"] += 1
                s["data_b"] += iplen
            else:
                s["ackonly_n"] += 1
                s["ackonly_b"] += iplen
    # which packets of each direction were acknowledged by a later header of the other
    acked = [set(), set()]
    for d in (0, 1):
        for t, seq, ack, bits, msgs, iplen in sent[1 - d]:
            acked[d].add(ack)
            for i in range(32):
                if bits >> i & 1:
                    acked[d].add((ack - i) & 0xFFFF)
    # arrival of the other direction's packets (as seen by this direction's sender): delivered ones only
    for d in (0, 1):
        s = dirs[d]
        other = [(t, ack, bits) for t, seq, ack, bits, msgs, iplen in sent[1 - d] if seq in acked[1 - d]]
        oi = 0
        # newest acknowledgement state known to this sender, updated as the other side's packets "arrive"
        # (capture time at send + nothing: loopback delay is ~0, close enough for ordering at 16.7 ms)
        known = set()
        newest_acked_seq = None
        last_carrier = {}
        delivered_before = defaultdict(bool)
        ids = set()
        for t, seq, ack, bits, msgs, iplen in sent[d]:
            while oi < len(other) and other[oi][0] < t:
                _, a, b = other[oi]
                known.add(a)
                for i in range(32):
                    if b >> i & 1:
                        known.add((a - i) & 0xFFFF)
                newest_acked_seq = a if newest_acked_seq is None or ((a - newest_acked_seq) & 0xFFFF) < 0x8000 else newest_acked_seq
                oi += 1
            if not msgs:
                continue
            if seq in acked[d]:
                s["data_delivered_n"] += 1
            first = resent = 0
            for m in msgs:
                ids.add(m)
                if m not in last_carrier:
                    first += 1
                else:
                    resent += 1
                    if delivered_before[m]:
                        s["resend_spurious_msgs"] += 1
                    else:
                        s["resend_needed_msgs"] += 1
                    pseq = last_carrier[m]
                    evidence = (newest_acked_seq is not None and pseq not in known
                                and ((newest_acked_seq - pseq) & 0xFFFF) < 0x8000 and newest_acked_seq != pseq)
                    s["resend_after_evidence_msgs" if evidence else "resend_timer_msgs"] += 1
                last_carrier[m] = seq
                if seq in acked[d]:
                    delivered_before[m] = True
            s["msgs_first"] += first
            s["msgs_resent"] += resent
            if resent and not first:
                s["resend_only_packets_n"] += 1
                s["resend_only_packets_b"] += iplen
            elif resent:
                s["mixed_packets_n"] += 1
        s["distinct_msgs"] = len(ids)
    dur = c["pkts"][-1][0] - c["start"]
    return {"client_port": key[0], "server_port": key[1], "start": c["start"], "seconds": round(dur, 2),
            "client_to_server": dict(dirs[0]), "server_to_client": dict(dirs[1])}


def main():
    res = census(sys.argv[1])
    if "--json" in sys.argv:
        print(json.dumps(res, indent=1))
        return
    t0 = res[0]["start"] if res else 0
    for r in res:
        # the benchmark's sender is the client; its warm-up is a connection to itself with 2,000 events
        a, b = r["client_to_server"], r["server_to_client"]
        warm = a.get("distinct_msgs", 0) >= 2000
        print(f"t+{r['start'] - t0:7.1f}s {r['client_port']}->{r['server_port']} {r['seconds']}s"
              f"{' (warm-up)' if warm else ''}")
        for name, s in (("  sender->receiver", a), ("  receiver->sender", b)):
            print(name, " ".join(f"{k}={v}" for k, v in sorted(s.items())))


if __name__ == "__main__":
    main()
