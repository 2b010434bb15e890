"""The little SVG writer the lab's diagrams share (layout-svg.py,
pipe-svg.py): plain strings, no dependency beyond Python itself."""

import html

SANS = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"


def esc(s):
    return html.escape(str(s), quote=True)


class Svg:
    def __init__(self, width, ident, text_size=13, rx=2):
        self.width = width
        self.ident = ident          # prefix of the title/desc ids
        self.text_size = text_size
        self.rx = rx
        self.parts = []

    def rect(self, x, y, w, h, fill, stroke="#333", sw=1.2, dash=None, rx=None):
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        self.parts.append(
            '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="%d" fill="%s" '
            'stroke="%s" stroke-width="%.1f"%s/>'
            % (x, y, w, h, self.rx if rx is None else rx, fill, stroke, sw, extra))

    def line(self, x1, y1, x2, y2, stroke="#888", sw=1, dash=None):
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        self.parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                          'stroke-width="%s"%s/>' % (x1, y1, x2, y2, stroke, sw, extra))

    def text(self, x, y, s, size=None, anchor="start", weight="normal", fill="#1a1a1a",
             mono=False, italic=False):
        style = ' font-style="italic"' if italic else ""
        self.parts.append(
            '<text x="%.1f" y="%.1f" font-family="%s" font-size="%s" text-anchor="%s" '
            'font-weight="%s" fill="%s"%s>%s</text>'
            % (x, y, MONO if mono else SANS, size or self.text_size, anchor, weight, fill,
               style, esc(s)))

    def render(self, height, title, desc):
        i = self.ident
        head = ('<svg xmlns="http://www.w3.org/2000/svg" class="lab-diagram" '
                'viewBox="0 0 %d %d" width="%d" height="%d" role="img" '
                'aria-labelledby="%s-title %s-desc">'
                % (self.width, height, self.width, height, i, i))
        body = ['<title id="%s-title">%s</title>' % (i, esc(title)),
                '<desc id="%s-desc">%s</desc>' % (i, esc(desc)),
                '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>'
                % (self.width, height)]
        return "\n".join([head] + body + self.parts + ["</svg>"]) + "\n"
