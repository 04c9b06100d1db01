#!/usr/bin/env python3
"""Test servers on 127.0.0.1 for tests/check_http.c and tests/http/prom-test.sh.

  server.py MODE --port-file FILE [--port N] [--dir DIR] [--file FILE] [--fail N]
            [--size BYTES] [--stay] [--tls-cert PEM --tls-key PEM]

Binds 127.0.0.1 on a free port, writes the port to FILE, serves until killed (or until its
parent process is gone); with --tls-cert, it speaks HTTPS. MODE:

  webhook   records each POST as DIR/<n>.json (the body) and DIR/<n>.headers; answers 200,
            or 500 for the first N requests (--fail N)
  hang      accepts connections, reads, and never answers
  garbage   answers 200 with text that is not JSON
  status500 answers 500 with a Prometheus API error body
  huge      answers 200 with --size bytes of JSON-looking text, no Content-Length
  prom      a Prometheus query API (query_range) answering with the matrix in --file, every
            request recorded as DIR/<n>.query
  dcgm      an exporter: /metrics serves --file (read anew on every scrape), so that a test
            can change a DCGM value between scrapes
"""
import argparse
import http.server
import os
import socket
import ssl
import sys
import threading
import time


def parent_watch():
    ppid = os.getppid()
    while True:
        time.sleep(0.5)
        if os.getppid() != ppid:
            os._exit(0)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    counter = 0
    lock = threading.Lock()

    def log_message(self, fmt, *args):
        pass

    def next_n(self):
        with Handler.lock:
            Handler.counter += 1
            return Handler.counter

    def send(self, code, body, ctype="application/json", length=True):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        if length:
            self.send_header("Content-Length", str(len(body)))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def handle_any(self):
        a = self.server.args
        if a.mode == "hang":
            time.sleep(3600)
            return
        if a.mode == "garbage":
            self.body()
            self.send(200, b"<html>this is not the API you are looking for\x00\x01</html>\n",
                      "text/html")
            return
        if a.mode == "status500":
            self.body()
            self.send(500, b'{"status":"error","errorType":"internal","error":"storage is on fire"}')
            return
        if a.mode == "huge":
            self.body()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b'{"status":"success","data":{"resultType":"matrix","result":[' + b" " * 65000
            left = a.size
            try:
                while left > 0:
                    self.wfile.write(chunk[:left])
                    left -= len(chunk)
            except OSError:
                pass
            self.close_connection = True
            return
        if a.mode == "prom":
            n = self.next_n()
            with open(os.path.join(a.dir, "%d.query" % n), "w") as f:
                f.write(self.path + "\n")
                f.write("".join("%s: %s\n" % kv for kv in self.headers.items()))
            with open(a.file, "rb") as f:
                self.send(200, f.read())
            return
        if a.mode == "dcgm":
            with open(a.file, "rb") as f:
                self.send(200, f.read(), "text/plain; version=0.0.4")
            return
        if a.mode == "webhook":
            n = self.next_n()
            data = self.body()
            with open(os.path.join(a.dir, "%d.headers" % n), "w") as f:
                f.write("%s %s\n" % (self.command, self.path))
                f.write("".join("%s: %s\n" % kv for kv in self.headers.items()))
            with open(os.path.join(a.dir, "%d.json" % n), "wb") as f:
                f.write(data)
            if n <= a.fail:
                self.send(500, b'{"error":"try later"}')
            else:
                self.send(200, b'{"ok":true}')
            return
        self.send(404, b"{}")

    do_GET = handle_any
    do_POST = handle_any


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode")
    p.add_argument("--port-file", required=True)
    p.add_argument("--dir", default=".")
    p.add_argument("--file")
    p.add_argument("--fail", type=int, default=0)
    p.add_argument("--size", type=int, default=64 << 20)
    p.add_argument("--port", type=int, default=0, help="bind this port (0: a free one)")
    p.add_argument("--stay", action="store_true", help="outlive the parent process")
    p.add_argument("--tls-cert", help="serve HTTPS with this certificate chain (PEM)")
    p.add_argument("--tls-key", help="the certificate's private key (PEM)")
    a = p.parse_args()
    srv = Server(("127.0.0.1", a.port), Handler)
    if a.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls_cert, a.tls_key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.args = a
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    if not a.stay:
        threading.Thread(target=parent_watch, daemon=True).start()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
