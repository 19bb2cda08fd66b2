"""Joins an IPv4 multicast group and prints one JSON line per datagram: its size and the IP TTL it arrived
with (IP_RECVTTL ancillary data; Python names neither IP_RECVTTL nor IP_TTL's control message, so their
Linux values are spelled out), and a small datagram's bytes in base64 (a zone or IMU packet, to decode).
Usage: multicast-ttl-receiver.py GROUP PORT LOCAL_ADDRESS"""
import base64
import json
import socket
import struct
import sys

IP_RECVTTL = 12  # linux/in.h
IP_TTL = 2
SMALL_DATAGRAM_BYTES = 2048  # lidar packets are larger: their bytes are not printed

group, port, local = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((group, port))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(group) + socket.inet_aton(local))
s.setsockopt(socket.IPPROTO_IP, IP_RECVTTL, 1)
print(json.dumps({"listening": True}), flush=True)
while True:
    data, ancillary, _flags, sender = s.recvmsg(65535, socket.CMSG_SPACE(4))
    ttl = None
    for level, kind, value in ancillary:
        if level == socket.IPPROTO_IP and kind == IP_TTL:
            ttl = struct.unpack("i", value[:4])[0]
    line = {"size": len(data), "ttl": ttl, "from": sender[0]}
    if len(data) <= SMALL_DATAGRAM_BYTES:
        line["payload"] = base64.b64encode(data).decode()
    print(json.dumps(line), flush=True)
