# SPDX-License-Identifier: Apache-2.0
"""A minimal FTP server and client for the conntrack helper tests.

  ftp.py serve [6]          one session on port 21 (over IPv6 with 6);
                            RETR sends DATA; prints where data went
  ftp.py get HOST active|passive [N]   fetches N times (1) in one
                            session; prints "got N bytes", the total

The server speaks just what Python's ftplib needs to fetch a file: USER,
PASS, TYPE, PASV/EPSV (passive), PORT/EPRT (active), RETR, QUIT.
"""
import ftplib
import socket
import sys

DATA = bytes(range(256)) * 400   # 100 KiB


def serve(v6):
    family = socket.AF_INET6 if v6 else socket.AF_INET
    lsock = socket.socket(family, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("::" if v6 else "0.0.0.0", 21))
    lsock.listen(1)
    lsock.settimeout(20)
    ctl, _ = lsock.accept()
    ctl.settimeout(20)
    f = ctl.makefile("rwb", buffering=0)
    me = ctl.getsockname()[0]
    pasv = None
    active = None

    def say(line):
        f.write(line.encode() + b"\r\n")

    say("220 tapdp test ftpd")
    for raw in f:
        cmd, _, arg = raw.decode().strip().partition(" ")
        cmd = cmd.upper()
        if cmd == "USER":
            say("331 password please")
        elif cmd == "PASS":
            say("230 logged in")
        elif cmd == "TYPE":
            say("200 type set")
        elif cmd in ("PASV", "EPSV"):
            pasv = socket.socket(family, socket.SOCK_STREAM)
            pasv.bind((me, 0))
            pasv.listen(1)
            pasv.settimeout(10)
            port = pasv.getsockname()[1]
            if cmd == "PASV":
                say("227 Entering Passive Mode (%s,%d,%d)" %
                    (me.replace(".", ","), port >> 8, port & 255))
            else:
                say("229 Entering Extended Passive Mode (|||%d|)" % port)
        elif cmd == "PORT":
            n = arg.split(",")
            active = (".".join(n[:4]), int(n[4]) * 256 + int(n[5]))
            say("200 port ok")
        elif cmd == "EPRT":
            d = arg[0]
            _, _, host, port, _ = arg.split(d)
            active = (host, int(port))
            say("200 port ok")
        elif cmd == "RETR":
            say("150 sending")
            if pasv:
                data, peer = pasv.accept()
            else:
                data = socket.create_connection(active, timeout=10)
                peer = data.getpeername()
            print("data %s %s:%d" % ("from" if pasv else "to", peer[0],
                                     peer[1]), flush=True)
            data.sendall(DATA)
            data.close()
            say("226 done")
        elif cmd == "QUIT":
            say("221 bye")
            break
        else:
            say("502 not here")


def get(host, mode, count):
    ftp = ftplib.FTP(timeout=10)
    ftp.connect(host, 21)
    ftp.login("user", "pass")
    ftp.set_pasv(mode == "passive")
    got = bytearray()
    for _ in range(count):
        ftp.retrbinary("RETR file", got.extend)
    ftp.quit()
    print("got %d bytes%s" % (len(got),
                              "" if got == DATA * count else " (corrupt)"))


if sys.argv[1] == "serve":
    serve(sys.argv[2:] == ["6"])
else:
    get(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 1)
