"""How long a page load takes beside connections that each sent one byte of a request and stopped, against
`python -m quando_env serve` in its own process (its defaults: 1000 connections, a 5 s head deadline):

    python benchmarks/bench_web_stalled.py [--stalled 999] [--port 8765]

Rows: a page load alone, one beside the stalled sockets (the server closes the oldest connection without a
whole request to make room), one more, and how long after that the server has closed every stalled socket.
"""
import argparse
import http.client
import socket
import subprocess
import sys
import time


def load(port: int) -> tuple[int, float]:
    """(status, seconds) of GET / as a browser on the printed address sends it."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/", headers={"Host": f"127.0.0.1:{port}"})
    status = conn.getresponse().status
    conn.close()
    return status, time.perf_counter() - start


def closed(s: socket.socket) -> bool:
    """Whether the server closes s within 60 s."""
    s.settimeout(60)
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stalled", type=int, default=999)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    server = subprocess.Popen([sys.executable, "-m", "quando_env", "serve", "--game", "cabo", "--players", "2",
                               "--opponents", "random", "--port", str(args.port), "--pace", "0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        while not server.stdout.readline().startswith("Open"):
            pass
        rows = [("page load alone", *load(args.port))]
        sockets = []
        for _ in range(args.stalled):
            sockets.append(socket.create_connection(("127.0.0.1", args.port)))
            sockets[-1].sendall(b"G")
        rows.append((f"page load beside {args.stalled} stalled sockets", *load(args.port)))
        rows.append(("page load again", *load(args.port)))
        start = time.perf_counter()
        every = all(closed(s) for s in sockets)
        rows.append((f"all {args.stalled} stalled sockets closed by the server" if every else
                     "a stalled socket still open after (s)", None, time.perf_counter() - start))
        for s in sockets:
            s.close()
    finally:
        server.terminate()
        server.wait()
    print(f"| {'':<48} | status | seconds |\n|{'-' * 50}|--------|---------|")
    for what, status, seconds in rows:
        print(f"| {what:<48} | {status or '':>6} | {seconds:7.3f} |")


if __name__ == "__main__":
    main()
