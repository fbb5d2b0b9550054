"""A fast path for CaboCha input: complete sentences scanned in C, their heads rewritten in C.

``scan_cabocha(lexicon, buffer, unidic_marks)`` reads a bytes buffer of UTF-8 CaboCha text (the
format is described in ``parser.formats.cabocha``) as ``parser.formats.knp_scan.scan_knp``
reads KNP, into the same ``KnpScan``: lexicon ids of the fields the parser reads, the byte span
of each bunsetsu's HEADD (and SCORE) field for ``KnpScan.rewrite``, and the blocks it leaves
to the Python reader. A block is the bytes up to and including an ``EOS`` line. In each block:

- ``* ID HEADD[ HEAD/FUNC[ SCORE ...]]`` bunsetsu lines, fields separated by single spaces:
  ID the bunsetsu's number from 0, HEADD ``-?[0-9]{1,9}`` and label letters;
- ``#! ...`` metadata lines, and lines starting with ``#`` without a tab (comments), anywhere;
- morpheme lines ``surface<TAB>features[<TAB>...]``: a non-empty surface, and features of
  6, 7, 9 or 17 and more comma-separated fields, without a double quote before the 17th
  comma (a quote after it, in UniDic's aConType, is passed over as the Python reader does).

The dictionary of a sentence, the layout of each morpheme's fields and the strings looked up
are those of ``read_cabocha_block``: the first morpheme that tells gives the sentence's
dictionary (17 fields or more UniDic, 9 IPAdic, 7 with a last field or 6 with a base form
JUMAN's), an IPAdic sentence with a part of speech of ``unidic_marks`` is UniDic's; surface,
pos1, pos2 (UniDic's pos2 and pos3 joined by ``-`` unless pos3 is ``*``) and conj_form are
looked up, an empty field as ``*``.

A block that holds anything else is slow, and only located: a ``\\r`` anywhere (counted as a
line end, as the Python reader counts it), a blank line, a byte order mark, any other line,
a bunsetsu line of another shape or out of order, a morpheme before the first bunsetsu line
(so a block without bunsetsu lines, MeCab's output, which the chunker needs), a bunsetsu
without morphemes, MeCab-UniDic's tab-separated features, an empty pos1 or a UniDic pos2-pos3
of more than 512 bytes. On every block it takes, the scanner gives what
``BunsetsuParser.encode(read_cabocha(...))`` gives, and ``rewrite`` the bytes of
``format_cabocha(sentence, heads)``.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.string cimport memchr, memcmp, memcpy
from libcpp.string cimport string
from libcpp.vector cimport vector

from polyparse.parser.formats.knp_scan cimport (
    UNKNOWN_ID,
    BlockState,
    KnpLexicon,
    KnpScan,
    LineWalk,
    ScanBuffers,
    Span,
    append,
    block_begins,
    drop_block,
    end_block,
    is_eos,
    next_line,
    read_number,
    run_scan,
    shrink,
    walk_start,
)

# The dictionaries by code, as KnpScan.block_tagset gives them.
TAGSETS = ("", "juman", "ipadic", "unidic")
cdef enum:
    NO_TAGSET = 0
    JUMAN = 1
    IPADIC = 2
    UNIDIC = 3
    # The fields whose spans are kept per morpheme (pos1 .. lForm of the three layouts).
    KEPT_FIELDS = 7
    UNIDIC_MIN_FIELDS = 17
    MAX_HEAD_DIGITS = 9
    MAX_ID_DIGITS = 9
    # The longest pos2-pos3 of UniDic taken (a longer one leaves its block to Python).
    MAX_JOINED = 512


cdef struct Morpheme:
    # A morpheme line of the block being scanned: its surface's id, its number of features
    # (at most UNIDIC_MIN_FIELDS), the byte spans of its first KEPT_FIELDS features, and what
    # it tells of its sentence's dictionary.
    int32_t surface
    int32_t n_fields
    int64_t starts[KEPT_FIELDS]
    int64_t ends[KEPT_FIELDS]
    uint8_t tells
    bint unidic_mark


cdef class _Scanner:
    """The state of one scan: the lexicon, UniDic's marks, and the block's morphemes."""

    cdef KnpLexicon lexicon
    cdef vector[string] unidic_marks
    cdef vector[Morpheme] block
    # UniDic's pos2 and pos3 joined by "-", to be looked up.
    cdef unsigned char joined[MAX_JOINED]
    cdef int32_t star

    def __init__(self, KnpLexicon lexicon, marks) -> None:
        self.lexicon = lexicon
        for mark in marks:
            self.unidic_marks.push_back(<string>(<str>mark).encode("utf-8"))
        self.star = lexicon.lookup(<const unsigned char*>b"*", 1)

    cdef inline int32_t field_id(self, const unsigned char* data, int64_t start,
                                 int64_t end) noexcept nogil:
        # The id of a field, an empty one read as "*".
        if start == end:
            return self.star
        return self.lexicon.lookup(data + start, end - start)

    cdef bint is_mark(self, const unsigned char* data, int64_t start,
                      int64_t end) noexcept nogil:
        cdef size_t k
        for k in range(self.unidic_marks.size()):
            if <int64_t>self.unidic_marks[k].size() == end - start and \
                    memcmp(self.unidic_marks[k].data(), data + start, end - start) == 0:
                return True
        return False

    cdef bint morpheme(self, const unsigned char* data, int64_t line, int64_t length,
                       int64_t tab, ScanBuffers* out) noexcept nogil:
        """Keep the morpheme of a line whose first tab is at tab (relative); False when the
        line is not in the plain spelling."""
        cdef Morpheme m
        cdef int64_t start = line + tab + 1
        cdef int64_t stop = line + length
        cdef const unsigned char* next_tab = <const unsigned char*>memchr(
            data + start, c'\t', stop - start)
        cdef int64_t features_end = stop if next_tab == NULL else next_tab - data
        cdef const unsigned char* quote = <const unsigned char*>memchr(
            data + start, c'"', features_end - start)
        cdef int n
        if tab == 0:
            return False
        if quote == NULL:
            n = _plain_fields(data, start, features_end, &m)
        elif _commas(data, start, quote - data) >= UNIDIC_MIN_FIELDS:
            # As the Python reader: a quote after the 17th comma is past the fields read.
            n = _plain_fields(data, start, quote - data, &m)
        else:
            n = _csv_fields(data, start, features_end, &m)
            if n < 0:
                return False
        if next_tab != NULL and n == 1:
            # MeCab-UniDic's tab-separated features (or a stray tab): the Python reader's.
            return False
        if n > UNIDIC_MIN_FIELDS:
            n = UNIDIC_MIN_FIELDS
        if not (n == UNIDIC_MIN_FIELDS or n == 6 or n == 7 or n == 9):
            return False
        if m.starts[0] == m.ends[0] or \
                m.ends[1] - m.starts[1] + 1 + m.ends[2] - m.starts[2] > MAX_JOINED:
            return False
        m.n_fields = n
        m.surface = self.lexicon.lookup(data + line, tab)
        if n == UNIDIC_MIN_FIELDS:
            m.tells = UNIDIC
        elif n == 9:
            m.tells = IPADIC
        elif n == 7 and not _is_star(data, m.starts[6], m.ends[6]):
            m.tells = JUMAN
        elif n == 6 and not _is_star(data, m.starts[4], m.ends[4]):
            m.tells = JUMAN
        else:
            m.tells = NO_TAGSET
        m.unidic_mark = self.is_mark(data, m.starts[0], m.ends[0])
        append(self.block, m, out.failed)
        return True

    cdef uint8_t block_tagset(self) noexcept nogil:
        """The dictionary of the block's sentence (read_cabocha_block's)."""
        cdef size_t k
        cdef uint8_t tagset = NO_TAGSET
        for k in range(self.block.size()):
            if self.block[k].tells != NO_TAGSET:
                tagset = self.block[k].tells
                break
        if tagset == IPADIC:
            for k in range(self.block.size()):
                if self.block[k].unidic_mark:
                    return UNIDIC
        return tagset

    cdef void emit(self, const unsigned char* data, ScanBuffers* out,
                   uint8_t tagset) noexcept nogil:
        """Append the ids of the block's morphemes, in the layout of tagset."""
        cdef size_t k
        cdef const Morpheme* m
        cdef int n
        cdef uint8_t layout
        cdef int32_t pos1
        cdef int64_t first, second
        for k in range(self.block.size()):
            m = &self.block[k]
            n = m.n_fields
            if n == UNIDIC_MIN_FIELDS or tagset == UNIDIC:
                layout = UNIDIC
            elif n == 6 or (n == 7 and tagset == JUMAN):
                layout = JUMAN
            else:
                layout = IPADIC
            append(out.surface, m.surface, out.failed)
            pos1 = self.field_id(data, m.starts[0], m.ends[0])
            append(out.pos1, pos1, out.failed)
            if pos1 == UNKNOWN_ID:
                append(out.unknown, Span(m.starts[0], m.ends[0] - m.starts[0]), out.failed)
            if layout == UNIDIC and m.starts[2] < m.ends[2] and \
                    not _is_star(data, m.starts[2], m.ends[2]):
                first = m.ends[1] - m.starts[1]
                second = m.ends[2] - m.starts[2]
                memcpy(self.joined, data + m.starts[1], first)
                self.joined[first] = c'-'
                memcpy(self.joined + first + 1, data + m.starts[2], second)
                append(out.pos2, self.lexicon.lookup(self.joined, first + 1 + second),
                       out.failed)
            else:
                append(out.pos2, self.field_id(data, m.starts[1], m.ends[1]), out.failed)
            if layout == JUMAN:
                append(out.conj_form, self.field_id(data, m.starts[3], m.ends[3]), out.failed)
            else:
                append(out.conj_form, self.field_id(data, m.starts[5], m.ends[5]), out.failed)


cdef int64_t _commas(const unsigned char* data, int64_t start, int64_t end) noexcept nogil:
    """The number of commas in data[start:end]."""
    cdef int64_t n = 0
    cdef const unsigned char* found = <const unsigned char*>memchr(data + start, c',',
                                                                    end - start)
    while found != NULL:
        n += 1
        found = <const unsigned char*>memchr(found + 1, c',', data + end - found - 1)
    return n


cdef int _plain_fields(const unsigned char* data, int64_t start, int64_t end,
                       Morpheme* m) noexcept nogil:
    """Split data[start:end] at its commas: the spans of the first KEPT_FIELDS fields into m;
    the number of fields, counted up to UNIDIC_MIN_FIELDS."""
    cdef int n = 0
    cdef int64_t position = start
    cdef const unsigned char* found
    while True:
        found = <const unsigned char*>memchr(data + position, c',', end - position)
        if n < KEPT_FIELDS:
            m.starts[n] = position
            m.ends[n] = end if found == NULL else found - data
        n += 1
        if found == NULL or n == UNIDIC_MIN_FIELDS:
            return n
        position = found - data + 1


cdef int _csv_fields(const unsigned char* data, int64_t start, int64_t end,
                     Morpheme* m) noexcept nogil:
    """Split data[start:end] as Python's csv.reader does (a field that starts with a double
    quote runs to the next quote not doubled, a comma inside it included; a quote elsewhere is
    a plain character): the spans of the first KEPT_FIELDS fields into m (inside a field's
    quotes); the number of fields, or -1 when one of the first KEPT_FIELDS is not a plain span
    of bytes (a doubled quote, text after its closing quote) or a quote is not closed."""
    cdef int n = 0
    cdef int64_t position = start
    cdef int64_t close
    cdef const unsigned char* found
    while True:
        if position < end and data[position] == c'"':
            close = position + 1
            while True:
                found = <const unsigned char*>memchr(data + close, c'"', end - close)
                if found == NULL:
                    return -1
                close = found - data
                if close + 1 < end and data[close + 1] == c'"':
                    if n < KEPT_FIELDS:
                        return -1
                    close += 2
                    continue
                break
            if n < KEPT_FIELDS:
                m.starts[n] = position + 1
                m.ends[n] = close
            position = close + 1
            if position < end and data[position] != c',':
                if n < KEPT_FIELDS:
                    return -1
                found = <const unsigned char*>memchr(data + position, c',', end - position)
                position = end if found == NULL else found - data
        else:
            found = <const unsigned char*>memchr(data + position, c',', end - position)
            if n < KEPT_FIELDS:
                m.starts[n] = position
                m.ends[n] = end if found == NULL else found - data
            position = end if found == NULL else found - data
        n += 1
        if position >= end:
            return n
        position += 1


cdef inline bint _is_star(const unsigned char* data, int64_t start, int64_t end) noexcept nogil:
    return end - start == 1 and data[start] == c'*'


cdef bint _scan_bunsetsu(const unsigned char* data, int64_t line, int64_t length,
                         int64_t expected, ScanBuffers* out) noexcept nogil:
    """Append the spans and head of a ``* ID HEADD ...`` line of bunsetsu number expected;
    False when the line is not in the plain spelling."""
    cdef int64_t i = 2
    cdef int64_t value, head
    cdef bint negative = False
    cdef int64_t head_start, head_end, token
    cdef int tokens
    if length < 5 or data[line + 1] != c' ':
        return False
    # ID
    value = read_number(data + line, &i, length, MAX_ID_DIGITS)
    if value < 0 or i == length or data[line + i] != c' ' or value != expected:
        return False
    i += 1
    # HEADD
    head_start = i
    if data[line + i] == c'-':
        negative = True
        i += 1
    head = read_number(data + line, &i, length, MAX_HEAD_DIGITS)
    if head < 0 or i == length or not (c'A' <= data[line + i] <= c'Z'):
        return False
    while i < length and c'A' <= data[line + i] <= c'Z':
        i += 1
    if i < length and data[line + i] != c' ':
        return False
    head_end = i
    # The fields after HEADD: none empty; the second (SCORE) is kept.
    append(out.score_start, <int64_t>-1, out.failed)
    append(out.score_end, <int64_t>-1, out.failed)
    tokens = 3
    while i < length:
        i += 1
        token = i
        while i < length and data[line + i] != c' ':
            i += 1
        if i == token:
            shrink(out.score_start, out.score_start.size() - 1)
            shrink(out.score_end, out.score_end.size() - 1)
            return False
        if tokens == 4:
            out.score_start[out.score_start.size() - 1] = line + token
            out.score_end[out.score_end.size() - 1] = line + i
        tokens += 1
    append(out.head_start, line + head_start, out.failed)
    append(out.head_end, line + head_end, out.failed)
    append(out.old_heads, <int32_t>(-head if negative else head), out.failed)
    append[uint8_t](out.old_types, data[line + head_end - 1], out.failed)
    return True


cdef void _scan_blocks(const unsigned char* data, int64_t n, void* scanner, ScanBuffers* out,
                       int64_t* end, int64_t* n_lines) noexcept nogil:
    # _scan as run_scan calls it (a BlockScan).
    _scan(data, n, <_Scanner>scanner, out, end, n_lines)


cdef void _scan(const unsigned char* data, int64_t n, _Scanner scanner, ScanBuffers* out,
                int64_t* end, int64_t* n_lines) noexcept nogil:
    cdef LineWalk walk
    cdef BlockState block
    cdef const unsigned char* line
    cdef int64_t length
    cdef const unsigned char* tab
    cdef uint8_t tagset
    append[int64_t](out.morpheme_ptr, 0, out.failed)
    append[int64_t](out.chunk_ptr, 0, out.failed)
    end[0] = 0
    n_lines[0] = 0
    scanner.block.clear()
    walk_start(&walk, data, n)
    block_begins(&block, out)
    while next_line(&walk, &line, &length, &block.slow):
        if is_eos(line, length):
            if scanner.block.empty() or block.n_chunks == 0 or \
                    block.last_chunk_start == <int64_t>scanner.block.size():
                block.slow = True
            if block.slow:
                drop_block(out, &block)
            else:
                tagset = scanner.block_tagset()
                scanner.emit(data, out, tagset)
                if tagset == NO_TAGSET:
                    # A sentence whose morphemes do not tell takes the dictionary its first
                    # morpheme's number of features means.
                    tagset = UNIDIC if scanner.block[0].n_fields == UNIDIC_MIN_FIELDS else \
                        JUMAN if scanner.block[0].n_fields == 6 else IPADIC
                append(out.block_tagset, tagset, out.failed)
                append(out.chunk_bounds, <int32_t>scanner.block.size(), out.failed)
            end_block(&walk, out, not block.slow, end, n_lines)
            block_begins(&block, out)
            scanner.block.clear()
        elif not block.slow:
            if length == 0:
                block.slow = True
            elif line[0] == c'*' and length > 1 and line[1] == c' ':
                if (block.n_chunks and block.last_chunk_start == <int64_t>scanner.block.size()) \
                        or not _scan_bunsetsu(data, walk.line_start, length, block.n_chunks, out):
                    block.slow = True
                else:
                    block.n_chunks += 1
                    block.last_chunk_start = scanner.block.size()
                    append(out.chunk_bounds, <int32_t>scanner.block.size(), out.failed)
            elif length >= 3 and line[0] == c'#' and line[1] == c'!' and line[2] == c' ':
                pass
            else:
                tab = <const unsigned char*>memchr(line, c'\t', length)
                if tab == NULL:
                    if line[0] != c'#':
                        block.slow = True
                elif block.n_chunks == 0 or \
                        not scanner.morpheme(data, walk.line_start, length, tab - line, out):
                    block.slow = True
    drop_block(out, &block)
    scanner.block.clear()


def scan_cabocha(KnpLexicon lexicon, buffer, unidic_marks=()) -> KnpScan:
    """Scan the complete blocks of ``buffer`` (bytes-like, UTF-8 CaboCha text); see the module
    notes. unidic_marks: the parts of speech that make an IPAdic-shaped sentence UniDic's
    (parser.formats.cabocha.UNIDIC_ONLY_POS). The buffer is kept by the result, for
    ``KnpScan.rewrite``."""
    return run_scan(buffer, _scan_blocks, _Scanner(lexicon, unidic_marks))
