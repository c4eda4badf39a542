"""A loopback TCP port for a child process that needs its port on the command line.

The rule of tests/testing/free_port.h: a port that could be bound just now, drawn at
random below the kernel's ephemeral range (where an outgoing connection cannot take it
before the child binds it), else one from binding port 0.

    from free_port import free_port        # or, from a shell: python3 free_port.py
    first = free_ports(5)                  # five consecutive ports: python3 free_port.py 5
"""
import random
import socket
import sys

LOWEST = 10000


def ephemeral_ports_start():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _try_bind(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return 0
        return s.getsockname()[1]


def free_ports(count=1):
    """The first of `count` consecutive ports that could all be bound just now."""
    end = ephemeral_ports_start()
    if end > LOWEST + count:
        for _ in range(200):
            first = random.randrange(LOWEST, end - count + 1)
            if all(_try_bind(p) for p in range(first, first + count)):
                return first
    if count == 1:
        return _try_bind(0)
    return 0


def free_port():
    return free_ports(1)


if __name__ == "__main__":
    print(free_ports(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
