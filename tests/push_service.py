"""A device and its push service, stood in on loopback for the tests (issue 31, item 2): no push service can be
reached from our machines, so the tests make the device's keys themselves (a P-256 key pair and a 16-byte auth
secret, as a browser does for ``pushManager.subscribe``), take the push service's place with a real HTTP server
(``tests.webhook_receiver.Receiver``: it keeps every request), and read each request as a push service and the
device would: the VAPID ``Authorization`` checked (an ES256 JWT for the service's origin, signed by the key the
service is configured with) and the aes128gcm body decrypted with the device's private key and auth secret."""

from __future__ import annotations

import base64
import json
import os
import time
from dataclasses import dataclass, field

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Device:
    """A browser's push subscription: its endpoint on the stand-in, its key pair and auth secret."""

    endpoint: str
    private_key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        raw = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64(raw)

    def subscription(self, label: str = "", kinds: list[str] | None = None) -> dict:
        """What the page posts (``PushSubscription.toJSON()``, a label and the kinds)."""
        return {
            "endpoint": self.endpoint,
            "keys": {"p256dh": self.p256dh, "auth": b64(self.auth)},
            "label": label,
            "kinds": kinds or ["move", "deadline", "results", "mention", "private"],
        }

    def decrypt(self, request: dict) -> dict:
        """The message in a push request, decrypted as the device does (RFC 8291: aes128gcm)."""
        assert request["headers"]["Content-Encoding"] == "aes128gcm"
        plain = http_ece.decrypt(
            request["raw"], private_key=self.private_key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


def vapid_claims(request: dict, public_key: ec.EllipticCurvePublicKey) -> dict:
    """The claims of a push request's VAPID JWT (RFC 8292), once its signature is checked against ``public_key``
    (the service's configured key) and its ``k`` is that key; an AssertionError otherwise."""
    scheme, _, params = request["headers"]["Authorization"].partition(" ")
    assert scheme == "vapid", scheme
    parts = dict(p.strip().split("=", 1) for p in params.split(","))
    raw_key = public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    assert unb64(parts["k"]) == raw_key, "k is not the service's VAPID key"
    head, body, signature = parts["t"].split(".")
    assert json.loads(unb64(head)) == {"typ": "JWT", "alg": "ES256"}
    sig = unb64(signature)
    der = utils.encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
    try:
        public_key.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID JWT is not signed by the service's key") from None
    claims = json.loads(unb64(body))
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600, "RFC 8292: exp within 24 hours"
    return claims
