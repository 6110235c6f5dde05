"""The judge <-> candidate process channel: framed JSON messages over a Unix socket, each able to
carry file descriptors (the shared buffers, see shared_memory.py).

A frame is a 12-byte header (4-byte descriptor count, 8-byte body length, little endian) sent
with the descriptors attached (SCM_RIGHTS), then the JSON body. Nothing but JSON and descriptors
crosses: no pickles, so a message from the candidate can never run code in the judge."""

import array
import json
import json.decoder
import json.encoder
import socket
import struct

HEADER = struct.Struct("<IQ")
MAX_BODY = 64 * 1024 * 1024     # a reply larger than this is the candidate misbehaving
MAX_FDS = 256


class ChannelClosed(EOFError):
    pass


class ChannelError(RuntimeError):
    pass


def _private_codec():
    """The encoder and decoder of every frame, built from CPython's C codec when this module is
    imported (in the candidate process: before the candidate is). A candidate that rebinds
    `json.dumps` or `JSONEncoder.encode` through a library setter (functools.update_wrapper,
    unittest.mock; blind red team, session 9) would otherwise rewrite the process's last reply,
    its list of violations included, with the process's own nonce."""
    make_encoder = json.encoder.c_make_encoder
    quote = json.encoder.c_encode_basestring_ascii
    scan = json.decoder.JSONDecoder().scan_once  # the C scanner, its parsers bound now
    if make_encoder is None or quote is None:  # a Python without the _json accelerator
        return (lambda value: json.dumps(value, allow_nan=False, default=str)), json.loads
    encode = make_encoder(None, str, quote, None, ":", ",", False, False, False)
    join = "".join

    def dumps(value):
        return join(encode(value, 0))

    def loads(data):
        text = data.decode("utf-8")
        try:
            value, end = scan(text, 0)
        except StopIteration as stop:
            raise json.JSONDecodeError("Expecting value", text, stop.value) from None
        if end != len(text):
            raise json.JSONDecodeError("Extra data", text, end)
        return value

    return dumps, loads


_DUMPS, _LOADS = _private_codec()


def _finite(value):
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


class Channel:
    def __init__(self, sock):
        self.sock = sock
        # Bound now: a later rebinding of socket.socket's methods (a class attribute write no
        # audit event sees) does not reach the frames of this channel.
        self._sendall, self._sendmsg = sock.sendall, sock.sendmsg
        self._recv, self._recvmsg = sock.recv, sock.recvmsg

    @classmethod
    def from_fd(cls, fd):
        return cls(socket.socket(fileno=fd))

    def send(self, message, fds=()):
        body = _DUMPS(_finite(message)).encode("utf-8")
        header = HEADER.pack(len(fds), len(body))
        if fds:
            self._sendmsg([header], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                          array.array("i", fds))])
        else:
            self._sendall(header)
        self._sendall(body)

    def _exact(self, count):
        chunks = []
        while count:
            chunk = self._recv(min(count, 1 << 20))
            if not chunk:
                raise ChannelClosed("the other side closed the channel")
            chunks.append(chunk)
            count -= len(chunk)
        return b"".join(chunks)

    def receive(self):
        """(message dict, [fds])."""
        fds = array.array("i")
        data, ancillary, _, _ = self._recvmsg(
            HEADER.size, socket.CMSG_SPACE(MAX_FDS * fds.itemsize))
        if not data:
            raise ChannelClosed("the other side closed the channel")
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
        if len(data) < HEADER.size:
            data += self._exact(HEADER.size - len(data))
        count, length = HEADER.unpack(data)
        if length > MAX_BODY or count > MAX_FDS or count != len(fds):
            raise ChannelError(f"malformed frame ({count} descriptors, {length} bytes)")
        try:
            message = _LOADS(self._exact(length))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ChannelError(f"malformed message: {error}") from None
        if not isinstance(message, dict):
            raise ChannelError("malformed message: not a JSON object")
        return message, list(fds)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
