"""A loopback TCP port for a child process that needs its port on the command line.

The rule of tests/testing/free_port.h: a port that could be bound just now, drawn at
random below the kernel's ephemeral range (where an outgoing connection cannot take it
before the child binds it), else one from binding port 0.

    from free_port import free_port        # or, from a shell: python3 free_port.py
"""
import random
import socket

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


def free_port():
    end = ephemeral_ports_start()
    if end > LOWEST:
        for _ in range(200):
            port = _try_bind(random.randrange(LOWEST, end))
            if port:
                return port
    return _try_bind(0)


if __name__ == "__main__":
    print(free_port())
