"""Read an HTML page the way a browser's parser tokenises it: elements, attributes and text.

Used by the HTML report's tests on the page as written and on the DOM Chromium dumps after its
script ran. The standard library's parser decodes character references, so text read here is
what a reader sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = frozenset({"meta", "link", "col", "wbr", "input", "br", "img", "hr", "source"})
INLINE = frozenset({"a", "abbr", "b", "code", "em", "i", "small", "span", "strong", "wbr"})
"""Elements that do not separate words; every other tag boundary counts as a space."""


@dataclass
class Element:
    """One element: its tag, attributes and (once closed) the text inside it."""

    tag: str
    attrs: dict[str, str | None]
    text: str = ""
    parts: list[str] = field(default_factory=list)


class Page(HTMLParser):
    """Every element of a page in document order, with the text each one holds."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self.feed(source)
        self.close()
        for element in self._open:
            element.text = "".join(element.parts)

    def _boundary(self, tag: str) -> None:
        if tag not in INLINE:
            self.handle_data(" ")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._boundary(tag)
        element = Element(tag, dict(attrs))
        self.elements.append(element)
        if tag not in VOID:
            self._open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._open) - 1, -1, -1):
            if self._open[depth].tag == tag:
                for element in self._open[depth:]:
                    element.text = "".join(element.parts)
                del self._open[depth:]
                break
        self._boundary(tag)

    def handle_data(self, data: str) -> None:
        for element in self._open:
            element.parts.append(data)

    # --- queries ---------------------------------------------------------------------

    def by_id(self, element_id: str) -> Element:
        """Return the element with ``id``; AssertionError when there is not exactly one."""
        found = [e for e in self.elements if e.attrs.get("id") == element_id]
        assert len(found) == 1, f"{len(found)} elements with id {element_id!r}"
        return found[0]

    def all(self, tag: str, **attrs: str) -> list[Element]:
        """Return the elements named ``tag`` whose attributes include ``attrs``."""
        return [
            e for e in self.elements
            if e.tag == tag and all(e.attrs.get(k) == v for k, v in attrs.items())
        ]

    def text_of(self, element_id: str) -> str:
        """Return the text inside the element with ``id``, whitespace runs as one space."""
        return " ".join(self.by_id(element_id).text.split())

    def case_rows(self) -> list[Element]:
        """Return the rows of the cases table's body."""
        rows = []
        inside = False
        for e in self.elements:
            if e.tag == "table":
                inside = e.attrs.get("id") == "cases"
            elif inside and e.tag == "tr" and "data-status" in e.attrs:
                rows.append(e)
        return rows
