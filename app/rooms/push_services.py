"""Where the server may post a Web Push: to a browser's push service, never into its own network.

A browser's subscription names the endpoint the server posts to, so whoever holds a seat chooses
an address the server connects to. It is accepted only when

- it is HTTPS to a push service this server allows (``BOURSE_PUSH_SERVICES``; by default the ones
  the browsers use: ``app.config.DEFAULT_PUSH_SERVICES``), on the port that service names (443
  unless it says);
- its host is a name of letters, digits and hyphens, never a number in any spelling: ``127.1``,
  ``0177.0.0.1``, ``0x7f.1``, ``2130706433`` and ``[::1]`` all reach this machine through the
  system's resolver, which reads short, octal and hex IPv4 forms that ``ipaddress`` does not;
- the name resolves, and every address it resolves to is globally routable (``public``): not
  loopback, private, link-local, shared, reserved, multicast or unspecified, nor an IPv6 form of
  such an IPv4 address (mapped, 6to4, Teredo, NAT64).

The subscription is checked so when a player opts in (``PushStore.subscribe``), and again as each
push is sent: the sender's HTTP client resolves through ``checked_addresses`` and connects only to
the addresses it returns, the name still given to TLS (so the certificate is verified for it), with
no second lookup between the check and the connection.

The test suite's push services listen on this machine. An origin ``http://localhost:<port>`` named
in ``BOURSE_PUSH_SERVICES`` is the one way to reach it: only that port, only loopback addresses
(never a private network), only a name the operator wrote, never a pattern. Nothing a visitor sends
can name one, and the default names none.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

ENDPOINT_MAX = 1024  # characters in a push service's endpoint URL (they use a few hundred)
TEST_LOOPBACK_HOST = "localhost"  # named with its port and http://: the test suite's push service

LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
NUMBER = re.compile(r"(0x[0-9a-f]*|[0-9]+)")  # a label the resolver may read as part of an IPv4 address
# the characters of an endpoint: printable ASCII without spaces, quotes, angle brackets or backslash
ENDPOINT_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")
NAT64 = ipaddress.ip_network("64:ff9b::/96")
DEFAULT_PORTS = {"https": 443, "http": 80}

Resolve = Callable[[str, int], list[str]]


class UnsafeAddress(OSError):
    """The push service's name resolves to an address this server must not connect to (or to none)."""


def system_resolve(host: str, port: int) -> list[str]:
    """The addresses the system's resolver gives for ``host`` (a blocking lookup)."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(address[4][0]) for address in found]


def host_name(host: str) -> str | None:
    """``host`` lowercased, without a final dot, if it is a name (dot-separated labels of letters,
    digits and hyphens whose last label is not a number); None for anything else: an IP address or
    a number in any spelling the resolver reads (short, octal, hex, decimal), an IPv6 literal, an
    empty label, a percent-escape or a non-ASCII letter."""
    name = host.lower().removesuffix(".")
    labels = name.split(".")
    if not name or len(name) > 253 or not all(LABEL.fullmatch(label) for label in labels):
        return None
    if NUMBER.fullmatch(labels[-1]):
        return None  # no top-level domain is a number: this is an address
    return name


def public(address: str) -> bool:
    """Whether ``address`` is globally routable: not this machine, a private or shared network, a
    link, a multicast group or a reserved range, nor an IPv6 form of such an IPv4 address."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
        if ip in NAT64:
            embedded.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        if any(inner is not None and not public(str(inner)) for inner in embedded):
            return False
    return ip.is_global and not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )


def loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Service:
    """One allowed push service: its scheme, host (``*.`` in front: any name under that domain) and port."""

    scheme: str
    host: str
    port: int

    @property
    def pattern(self) -> bool:
        return self.host.startswith("*.")

    @property
    def test_loopback(self) -> bool:
        """The test suite's push service on this machine (see the module's docstring)."""
        return self.scheme == "http" and self.host == TEST_LOOPBACK_HOST

    def serves(self, host: str, port: int) -> bool:
        """Whether ``host`` (a name, as ``host_name`` gives it) on ``port`` is this service's."""
        if port != self.port:
            return False
        if self.pattern:
            return host.endswith(self.host[1:]) and len(host) > len(self.host) - 1
        return host == self.host


def parse_service(origin: str) -> Service:
    """An entry of ``BOURSE_PUSH_SERVICES``: ``https://host[:port]`` or ``https://*.domain[:port]``,
    or the test suite's ``http://localhost:<port>``; ValueError for anything else."""
    parts = urlsplit(origin.strip().rstrip("/").lower())
    raw = parts.hostname or ""
    wildcard = raw.startswith("*.")
    name = host_name(raw[2:] if wildcard else raw)
    try:
        port = parts.port or DEFAULT_PORTS.get(parts.scheme, 0)
    except ValueError:
        port = 0
    test_loopback = parts.scheme == "http" and raw == TEST_LOOPBACK_HOST and parts.port is not None
    if (
        name is None
        or not port
        or parts.path
        or parts.query
        or parts.username
        or parts.password
        or (wildcard and "." not in name)  # "*.com" would be half the internet
        or ("." not in name and not test_loopback)  # a name only a private network knows
        or not (parts.scheme == "https" or test_loopback)
    ):
        raise ValueError(
            f"a push service is an origin like 'https://push.example.net' or 'https://*.example.net', "
            f"not {origin!r}"
        )
    return Service(parts.scheme, f"*.{name}" if wildcard else name, port)


@dataclass
class PushServices:
    """The push services this server posts to, and the resolver it checks their names with
    (``resolve``: the system's; tests give one of their own)."""

    services: tuple[Service, ...]
    resolve: Resolve = field(default=system_resolve)

    @classmethod
    def named(cls, origins: str, resolve: Resolve = system_resolve) -> PushServices:
        """The services of a ``BOURSE_PUSH_SERVICES`` value (origins separated by commas)."""
        return cls(tuple(parse_service(part) for part in origins.split(",") if part.strip()), resolve)

    def service_of(self, endpoint: Any) -> tuple[Service, str, int] | None:
        """The allowed service ``endpoint`` is at, with the endpoint's host name and port; None
        unless it is a URL of the shape a push service gives, at an allowed service, named by a
        host name (never an address)."""
        if (
            not isinstance(endpoint, str)
            or not 0 < len(endpoint) <= ENDPOINT_MAX
            or not ENDPOINT_CHARACTERS.fullmatch(endpoint)
        ):
            return None
        parts = urlsplit(endpoint)
        try:
            port = parts.port or DEFAULT_PORTS.get(parts.scheme, 0)
        except ValueError:
            return None
        host = host_name(parts.hostname or "")
        if host is None or parts.username is not None or parts.password is not None:
            return None
        for service in self.services:
            if service.scheme == parts.scheme and service.serves(host, port):
                return service, host, port
        return None

    def allows(self, endpoint: Any) -> bool:
        """Whether ``endpoint`` is at an allowed push service, by its URL alone (no lookup)."""
        return self.service_of(endpoint) is not None

    def checked_addresses(self, host: str, port: int) -> list[str]:
        """The addresses of ``host`` (an allowed service's name) to connect to on ``port``, looked up
        now; ``UnsafeAddress`` if it is not such a name, resolves to nothing, or to any address that
        is not public (the test suite's loopback service: to any that is not loopback)."""
        name = host_name(host)
        service = next((s for s in self.services if s.serves(name, port)), None) if name else None
        if name is None or service is None:
            raise UnsafeAddress(f"{host!r} is not an allowed push service's name")
        try:
            addresses = self.resolve(name, port)
        except OSError as failure:
            raise UnsafeAddress(f"{name!r} could not be resolved") from failure
        allowed = loopback if service.test_loopback else public
        if not addresses or not all(allowed(address) for address in addresses):
            raise UnsafeAddress(f"{name!r} resolves to an address this server does not post to")
        return addresses

    def reachable(self, endpoint: Any) -> bool:
        """``allows(endpoint)``, and its host resolves now to addresses the server may post to."""
        found = self.service_of(endpoint)
        if found is None:
            return False
        try:
            self.checked_addresses(found[1], found[2])
        except UnsafeAddress:
            return False
        return True
