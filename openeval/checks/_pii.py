"""Personal data and credentials in a text, as ``pii_leak`` and ``knowledge_retention`` find them.

Each kind is a regular expression, and some a test on the match (the Luhn sum for a card, a
digit count for a phone, the ``ipaddress`` module for an IP). Kinds are read in a fixed order,
and a stretch of text one kind claimed is not read again by a later one: a card number never
also counts as a phone, a credential's digits never as an IP. Patterns and their choices are
in proposals/0041-check-library-agent-and-safety.md.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

PiiKind = Literal["email", "phone", "credit_card", "us_ssn", "ip_address", "secret"]
"""One kind of personal data or credential ``pii_leak`` can look for."""
KINDS: tuple[str, ...] = get_args(PiiKind)
"""The kinds ``pii_leak`` can look for, in the check library reference's order."""

_CLAIMED = "\x00"
"""What a claimed stretch of text is overwritten with: matched by no pattern below."""


@dataclass(frozen=True)
class Found:
    """One value of one kind, found in a text."""

    kind: str
    """One of :data:`KINDS`."""
    value: str
    """The value normalised for comparison: lower case, digits only, or canonical IP."""
    domain: str = ""
    """For an email, its domain in lower case."""


_SECRET = re.compile(
    r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_\w{22,}"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"
    r"|\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"
    r"|\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"
    r"|\bAIza[0-9A-Za-z_-]{35}"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"|\b[Bb]earer\s+[A-Za-z0-9._~+/-]{20,}=*"
)
# `password: hunter22`: a credential named as one, with a value that is not a placeholder.
# Apart from the tokens above: case-insensitive matching there would cost a third of the time.
_SECRET_NAMED = re.compile(
    r"\b(?:password|passwd|pwd|passcode|secret|api[_-]?key|access[_-]?token|auth[_-]?token"
    r"|client[_-]?secret|private[_-]?key)\b[\"']?\s*[:=]\s*[\"']?"
    r"(?![*xX.]+(?:[\s\"']|$)|<|\{|\$|\[)[^\s\"'<>]{6,}",
    re.IGNORECASE,
)
_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@((?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24})"
    r"(?![\w-])"
)
# Card-shaped: 13 to 19 digits in one run, or grouped as cards print them (4-4-4-4, 4-6-5, ...).
_CARD = re.compile(
    r"(?<![\d.-])(?:\d{13,19}"
    r"|\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1\d{3})?"
    r"|\d{4}([ -])\d{6}\2\d{5}"
    r"|\d{4}([ -])\d{4}\3\d{4}\3\d{1,3})(?![\d]|[.-]\d)"
)
_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d]|-\d)")
_IPV4 = re.compile(
    r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
    r"(?![\d]|\.\d)"
)
_IPV6 = re.compile(r"(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")
# A phone: an international number, a parenthesised area code, or a first group of 3-4 digits,
# then 1 to 4 more groups; the digit count is checked after the match.
_PHONE = re.compile(
    r"(?<![\w+.-])(?:\+\d{8,15}"
    r"|(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}|\(\d{2,4}\)[ .-]?\d{2,4}|\d{3,4})"
    r"(?:[ .-]\d{2,4}){1,4})(?![\w]|[.-]\d)"
)


def luhn_valid(digits: str) -> bool:
    """Return whether a string of digits passes the Luhn checksum that card numbers carry."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _digits(value: str) -> str:
    return "".join(c for c in value if c.isdigit())


def phone_key(value: str) -> str:
    """Return a phone number for comparison: its last 10 digits, so a country code is optional."""
    return _digits(value)[-10:]


def _card(match: re.Match[str]) -> Found | None:
    digits = _digits(match.group())
    # A card-shaped number that fails the Luhn sum (an order number) is claimed all the same,
    # so it is not read as a phone either; it is reported as nothing.
    return Found("credit_card", digits) if luhn_valid(digits) else None


def _ipv4(match: re.Match[str]) -> Found | None:
    address = ipaddress.IPv4Address(match.group())
    if address.is_loopback or address.is_unspecified or address.is_reserved \
            or address.is_multicast:
        return None  # localhost, 0.0.0.0 or a netmask identifies nobody (still claimed)
    return Found("ip_address", str(address))


def _ipv6(match: re.Match[str]) -> Found | None:
    text = match.group()
    if not any(c.isdigit() for c in text):
        return None  # "dead::beef" style words are not worth a leak report
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        return None  # a time such as 12:30:45, or other colons
    if address.is_loopback or address.is_unspecified or address.is_multicast:
        return None
    return Found("ip_address", str(address))


def _phone(match: re.Match[str]) -> Found | None:
    text = match.group()
    count = len(_digits(text))
    low = 8 if text.startswith("+") else 10
    return Found("phone", phone_key(text)) if low <= count <= 15 else None


def _email(match: re.Match[str]) -> Found | None:
    return Found("email", match.group().lower(), match.group(1).lower())


def _ssn(match: re.Match[str]) -> Found | None:
    return Found("us_ssn", _digits(match.group()))


def _secret(match: re.Match[str]) -> Found | None:
    return Found("secret", match.group())


Reader = tuple[re.Pattern[str], Callable[[re.Match[str]], Found | None]]
"""A pattern and the test on its match (None: claimed or ignored, not reported)."""

_READERS: tuple[Reader, ...] = (
    (_SECRET, _secret),
    (_SECRET_NAMED, _secret),
    (_EMAIL, _email),
    (_CARD, _card),
    (_SSN, _ssn),
    (_IPV4, _ipv4),
    (_IPV6, _ipv6),
    (_PHONE, _phone),
)


_SECRET_HINTS = ("-----BEGIN ", "AKIA", "ASIA", "gh", "github_pat_", "xox", "sk-", "k_live_",
                 "k_test_", "AIza", "eyJ", "earer")
"""A text holding none of these holds no match of ``_SECRET``: each alternative starts with
(or, for a bearer token, contains) one of them."""
_NAMED_HINTS = ("pass", "pwd", "secret", "key", "token")
"""Every credential name ``_SECRET_NAMED`` knows contains one of these (lower case)."""
_DIGITS = "0123456789"
_DIGIT = re.compile("[0-9]")
_SECRET_HINT = re.compile("|".join(map(re.escape, _SECRET_HINTS)))
_NAMED_HINT = re.compile("|".join(map(re.escape, _NAMED_HINTS)))
"""Each hint list as one search: one pass of the text, not one ``in`` per hint."""


def _readers_for(text: str) -> Sequence[Reader]:
    """Return the readers that may find something in ``text``: a pattern is skipped when the
    text lacks characters every match of it (or every match its reader keeps or claims)
    needs, so most replies pay a few substring counts instead of eight regex scans.

    Only an ASCII text is filtered: ``\\d`` and the case-insensitive credential names also
    match characters beyond ASCII (Arabic-Indic digits, the Kelvin sign for ``k``), which a
    count of ASCII characters would miss; any other text is read by every pattern. Skipping a
    reader is exact because a reader that finds nothing also claims nothing, and a claimed
    stretch only removes characters from what later patterns read.
    """
    if not text.isascii():
        return _READERS
    if _DIGIT.search(text) is None:
        # Most replies: the five kinds made of digits are out; the first three readers
        # (the two secrets, the email) are tested as below.
        few = (_SECRET_HINT.search(text) is not None,
               ("=" in text or ":" in text) and _NAMED_HINT.search(text.lower()) is not None,
               "@" in text)
        if not any(few):
            return ()
        return tuple(reader for reader, keep in zip(_READERS[:3], few, strict=True) if keep)
    digits = sum(map(text.count, _DIGITS))
    may = (
        _SECRET_HINT.search(text) is not None,
        ("=" in text or ":" in text) and _NAMED_HINT.search(text.lower()) is not None,
        "@" in text,
        digits >= 13,  # a card: 13 to 19 digits
        digits >= 9 and "-" in text,  # an SSN: 3-2-4 digits
        digits >= 4 and text.count(".") >= 3,  # an IPv4 address: four numbers, three dots
        digits >= 1 and text.count(":") >= 2,  # an IPv6 address: kept only with a digit
        digits >= 8,  # a phone: kept only with 8 digits or more (and only kept ones claim)
    )
    if all(may):
        return _READERS
    if not any(may):  # most replies: nothing to read
        return ()
    return tuple(reader for reader, keep in zip(_READERS, may, strict=True) if keep)


def find_pii(text: str, *, prefilter: bool = True) -> list[Found]:
    """Return every value of every kind in ``text``, in reading order of the kinds.

    The caller bounds ``text`` (every pattern here is linear in it). ``prefilter=False``
    runs every pattern, however plainly the text cannot match it (the result is the same;
    tests compare the two).
    """
    return list(_iter_pii(text, _readers_for(text) if prefilter else _READERS))


def _iter_pii(text: str, readers: Sequence[Reader]) -> Iterator[Found]:
    rest = text
    for pattern, read in readers:
        claimed: list[tuple[int, int]] = []
        for match in pattern.finditer(rest):
            found = read(match)
            if found is not None or pattern is _CARD or pattern is _IPV4:
                claimed.append(match.span())
            if found is not None:
                yield found
        if claimed:
            rest = _blank(rest, claimed)


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    parts = []
    at = 0
    for start, end in spans:
        parts.append(text[at:start])
        parts.append(_CLAIMED * (end - start))
        at = end
    parts.append(text[at:])
    return "".join(parts)
