"""rsv_client.py - the reservation protocol of docs/reservation.md written
from that text alone with Python's hmac and hashlib: the proof that the
spec can be implemented independently, and the tool the server tests use
to send what reservation.so never would (tampered, replayed, oversize
frames, unknown requests, ABORT)."""
import hashlib
import hmac
import json
import os
import socket
import struct

LABEL = b'cr-reservation/1'


class Closed(Exception):
    pass


class Conn:
    def __init__(self, address, secret, auth=True):
        host, port = address.rsplit(':', 1)
        self.sock = socket.create_connection((host, int(port)), timeout=20)
        self.secret = secret
        self.buf = b''
        self.sseq = self.cseq = 0
        self.snonce = self.cnonce = None
        hello = self.recv()
        assert hello['type'] == 'HELLO', hello
        self.hello = hello['data']
        self.snonce = bytes.fromhex(self.hello['nonce'])
        if auth:
            self.cnonce = os.urandom(32)
            self.send('AUTH', {'nonce': self.cnonce.hex()})

    def tag(self, direction, seq, body):
        if self.cnonce is None:
            return hmac.new(self.secret, body, hashlib.sha256).digest()
        msg = LABEL + direction + self.snonce + self.cnonce + struct.pack('>Q', seq) + body
        return hmac.new(self.secret, msg, hashlib.sha256).digest()

    def frame(self, mtype, data, seq=None):
        body = json.dumps({'type': mtype, 'data': data}).encode()
        if seq is None:
            seq = self.cseq
            self.cseq += 1
        tag = self.tag(b'C', seq, body)
        return struct.pack('>I', 32 + len(body)) + tag + body

    def send(self, mtype, data=None):
        self.sock.sendall(self.frame(mtype, data if data is not None else {}))

    def raw(self, data):
        self.sock.sendall(data)

    def recv(self):
        while len(self.buf) < 4 or len(self.buf) < 4 + struct.unpack('>I', self.buf[:4])[0]:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Closed()
            self.buf += chunk
        n = struct.unpack('>I', self.buf[:4])[0]
        tag, body = self.buf[4:36], self.buf[36:4 + n]
        self.buf = self.buf[4 + n:]
        if not hmac.compare_digest(tag, self.tag(b'S', self.sseq, body)):
            raise ValueError('bad tag from the server')
        self.sseq += 1
        return json.loads(body)

    def request(self, mtype, data=None):
        self.send(mtype, data)
        return self.recv()

    def closed(self):
        """True when the server closed the connection (nothing more comes)."""
        try:
            self.sock.settimeout(10)
            return self.sock.recv(1) == b''
        except (ConnectionResetError, socket.timeout):
            return False

    def peer(self):
        """Our end as the server names it, "127.0.0.1:PORT"."""
        host, port = self.sock.getsockname()[:2]
        return '%s:%d' % (host, port)

    def close(self):
        self.sock.close()
