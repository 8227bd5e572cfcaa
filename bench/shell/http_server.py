"""Plain HTTP/1.1 over kernel TCP for the TCP-vs-QUIC lab: GET /bytes/N
answers N bytes, with the congestion controller chosen for the listening
socket (and so every accepted one) by TCP_CONGESTION.

Usage: python3 bench/shell/http_server.py PORT CC
"""
import socket
import sys
import threading

CHUNK = b"x" * 65536


def serve(conn):
    with conn:
        req = b""
        while b"\r\n\r\n" not in req:
            d = conn.recv(4096)
            if not d:
                return
            req += d
        path = req.split(b" ")[1].decode()
        n = int(path.rsplit("/", 1)[1]) if path.startswith("/bytes/") else 0
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % n)
        while n > 0:
            k = min(n, len(CHUNK))
            conn.sendall(CHUNK[:k])
            n -= k


def main():
    port, cc = int(sys.argv[1]), sys.argv[2]
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.bind(("0.0.0.0", port))
    s.listen(16)
    print("listening", flush=True)
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


main()
