"""Who is at the other end of a loopback connection, before a password is sent to it.

The embedded FalkorDB listens on a loopback port it chose; once it stops, any
local user may bind that port. A client that reconnects by itself (the redis
connection pool of a long-lived facade session or MCP server) would then send
``AUTH <password>`` to whoever listens there. So before it authenticates, a
connection to the embedded server checks, from the kernel's socket tables
(``/proc/net/tcp``), that

* the socket that accepted it belongs to this OS user, and
* the port's listening socket is one of the open files of the server process
  mragent started (its recorded pid),

none of which needs the secret or lets an impostor answer for the server.
Where ``/proc/net/tcp`` does not exist (not Linux), there is nothing to read
and the check is skipped.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

from mragent.core.errors import BackendUnavailable

TABLE = Path("/proc/net/tcp")
"""The IPv4 sockets' table: the server listens on 127.0.0.1 and :func:`_hex` writes IPv4
addresses, which no row of the IPv6 table (``tcp6``) can equal. Each read costs the
kernel a walk of its socket hash tables (about 3 ms here, however few sockets are
open), and every connection is checked, so the IPv6 table is not read."""
LISTEN = "0A"
SETTLE_S = 0.2


class ImpostorListener(BackendUnavailable):
    """What listens on the embedded server's port is not that server."""


def _hex(address: tuple[str, int]) -> str:
    """An IPv4 address as the kernel's socket tables print it (host byte order)."""
    host, port = address[0], address[1]
    return f"{int.from_bytes(socket.inet_aton(host), sys.byteorder):08X}:{port:04X}"


def _sockets() -> list[list[str]] | None:
    """Every IPv4 TCP socket's fields from the kernel's table; None where there is none."""
    try:
        lines = TABLE.read_text().splitlines()[1:]
    except OSError:
        return None
    return [line.split() for line in lines]


def _inodes(pid: int) -> set[str]:
    """The socket inodes process ``pid`` holds open (empty when it is gone)."""
    held: set[str] = set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return held
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            held.add(target[len("socket:[") : -1])
    return held


def check_server(sock: socket.socket, pid: int) -> None:
    """Refuse a connected socket whose peer is not process ``pid``, run by this user.

    Raises:
        ImpostorListener: naming the port and the expected server.
    """
    peer, local = _hex(sock.getpeername()), _hex(sock.getsockname())
    port = sock.getpeername()[1]
    deadline = time.monotonic() + SETTLE_S
    while True:
        rows = _sockets()
        if rows is None:
            return
        # Fields: sl, local, remote, state, queues, timer, retransmits, uid, timeout, inode.
        accepted = [row for row in rows if row[1] == peer and row[2] == local]
        # The kernel files the server's end of the handshake a moment after connect()
        # returns, at worst: look again before calling it missing.
        if accepted or time.monotonic() > deadline:
            break
        time.sleep(0.002)
    listening = [row[9] for row in rows if row[1] == peer and row[3] == LISTEN]
    if not accepted or int(accepted[0][7]) != os.geteuid():
        raise ImpostorListener(
            f"127.0.0.1:{port} is answered by another OS user's socket, not the embedded "
            "FalkorDB: refusing to send it the password"
        )
    if not set(listening) & _inodes(pid):
        raise ImpostorListener(
            f"127.0.0.1:{port} is not served by the embedded FalkorDB mragent started "
            f"(pid {pid}), which has stopped or been replaced: refusing to send the "
            "password there; open the memory again (mragent db start)"
        )
