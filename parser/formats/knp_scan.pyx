"""A fast path for KNP input: complete sentences scanned in C, their ``*`` heads rewritten in C.

``scan_knp(lexicon, buffer)`` reads a bytes buffer of UTF-8 KNP text (the format is described
in ``parser.formats.knp``) without making a Python string per field. A block is the bytes up to
and including an ``EOS`` line (``EOS\\n``; ``EOS\\r\\n`` also ends a block); bytes after the last
one are left for the next buffer. In each block:

- ``# ...`` comment lines may come before the first bunsetsu line;
- ``* HEAD TYPE ...`` bunsetsu lines start a bunsetsu: HEAD is ``-?[0-9]{1,9}``, TYPE one of
  ``DPAI``, followed by a space or the end of the line; the byte span of ``HEAD TYPE`` is kept
  with the old head and type, for ``KnpScan.rewrite``;
- ``+ HEAD ...`` basic-phrase lines (third byte ``-`` or a digit) are passed over;
- every other line is a morpheme line ``surface reading base pos1 pos1-id pos2 pos2-id
  conj-type conj-type-id conj-form conj-form-id [rest]``: at least 11 non-empty fields
  separated by single spaces, the four ids ASCII digits; fields 0, 3, 5 and 9 are mapped to
  lexicon ids where their bytes lie, through a flat hash table (``KnpLexicon``), an unknown
  string giving 2.

A block that holds anything else is *slow*: a blank line, a ``\\r`` anywhere (a line end to
the Python reader, as ``\\r\\n`` and ``\\n`` are; ``n_lines`` and ``block_line`` count it so),
a ``\\ `` (JUMAN's escaped space) in a morpheme line, an ``@`` homograph line, a ``*`` line of
another shape, a ``+`` line without a head, a comment after the first bunsetsu or morpheme line
or one with seven fields in a row shaped like the ids of a morpheme line (it could be a
morpheme whose surface is ``#``), a morpheme before the first bunsetsu line (which includes a
block without bunsetsu lines), a bunsetsu without morphemes, or no morpheme at all.
Slow blocks are only located (byte span, first line); the caller reads them with
``parser.formats.knp.read_knp``, which accepts the rarer spellings and names the exact line of
an error. On every block it accepts, the scanner gives exactly what
``BunsetsuParser.encode(read_knp(...))`` gives, and ``rewrite`` exactly the bytes of
``format_knp(sentence, heads)``.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memchr, memcpy
from libcpp.string cimport string

import numpy as np

cdef int N_FIELDS = 11
# At most this many head digits, so that a head always fits an int32.
cdef int MAX_HEAD_DIGITS = 9


cdef extern from "Python.h":
    int PyUnicode_IS_ASCII(object text)
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil


cdef Py_ssize_t _utf8_length(str text) except -1:
    """The number of bytes of text in UTF-8 (text has no lone surrogate)."""
    cdef Py_ssize_t n = len(text), k, length = 0
    cdef int kind
    cdef void* data
    cdef Py_UCS4 c
    if PyUnicode_IS_ASCII(text):
        return n
    kind = PyUnicode_KIND(text)
    data = PyUnicode_DATA(text)
    for k in range(n):
        c = PyUnicode_READ(kind, data, k)
        length += 1 if c < 0x80 else 2 if c < 0x800 else 3 if c < 0x10000 else 4
    return length


def lexicon_hash(key: bytes) -> int:
    """The 64-bit hash KnpLexicon files a string's UTF-8 bytes under (its low bits pick the
    first slot, the high 32 bits are kept as the slot's check): for tests."""
    cdef const unsigned char[::1] data = key
    return bytes_hash(&data[0] if len(key) else <const unsigned char*>b"", len(key))


cdef class KnpLexicon:
    """The lexicon's strings as UTF-8 byte strings in a flat open-addressing table; a string's
    id is its position in ``strings`` (``StringInterner.strings``; of equal strings, the last).

    Linear probing (Knuth, TAOCP vol. 3, 6.4, algorithm L) over a power-of-two table at most
    half full: a lookup hashes the bytes where they lie in the input (bytes_hash), walks from
    slot ``hash & mask`` to the first empty slot, and compares a slot's bytes only when its
    check (the hash's high half) and length match. No string is made per field. (Its
    attributes and lookup are declared in knp_scan.pxd.)"""

    def __init__(self, strings: list) -> None:
        cdef bytes key
        cdef bytes joined = None
        cdef const unsigned char* text
        cdef Py_ssize_t offset = 0, length
        cdef int32_t index
        try:
            # All the strings in one UTF-8 encoding (each found again by its length), rather
            # than a bytes object each.
            joined = "".join(strings).encode("utf-8")
        except (UnicodeEncodeError, TypeError):
            pass
        if joined is not None:
            self._size_table(len(strings))
            text = <const unsigned char*>(<char*>joined)
            for index in range(len(strings)):
                length = _utf8_length(strings[index])
                self._insert(text + offset, length, index)
                offset += length
            return
        encoded = []
        for index, item in enumerate(strings):
            try:
                encoded.append(((<str>item).encode("utf-8"), index))
            except UnicodeEncodeError:
                # A lone surrogate: no valid UTF-8 input can spell it.
                continue
        self._size_table(len(encoded))
        for key, index in encoded:
            self._insert(<const unsigned char*>(<char*>key), len(key), index)

    cdef void _size_table(self, Py_ssize_t n_strings):
        # An empty table of the least power of two of slots (8 or more) at least twice
        # n_strings.
        cdef uint64_t capacity = 8
        while capacity < 2 * <uint64_t>n_strings:
            capacity <<= 1
        self.slots.assign(capacity, LexiconSlot(0, -1, 0, 0))
        self.mask = capacity - 1
        self.size = 0

    cdef int _insert(self, const unsigned char* text, Py_ssize_t length,
                     int32_t index) except -1:
        # File the string text[0:length] under id index (a string already filed takes the new
        # id: of equal strings, the last).
        cdef uint64_t h, i
        if self.text.size() + length > 0xFFFFFFFF:
            raise ValueError("the lexicon's strings exceed 4 GiB")
        h = bytes_hash(text, length)
        i = h & self.mask
        while self.slots[i].id >= 0 and not self._holds(&self.slots[i], h, text, length):
            i = (i + 1) & self.mask
        if self.slots[i].id < 0:
            self.slots[i] = LexiconSlot(<uint32_t>(h >> 32), index,
                                        <uint32_t>self.text.size(), <uint32_t>length)
            self.text.insert(self.text.end(), text, text + length)
            self.size += 1
        else:
            self.slots[i].id = index
        return 0

    def __len__(self) -> int:
        return self.size

    @property
    def capacity(self) -> int:
        """The number of slots (a power of two, at least twice the number of strings)."""
        return self.slots.size()

    def get(self, key: bytes) -> int:
        """The id of a string's UTF-8 bytes, 2 (unknown) when the lexicon lacks it."""
        cdef const unsigned char[::1] data = key
        return self.lookup(&data[0] if len(key) else <const unsigned char*>b"", len(key))


cdef class KnpScan:
    """What ``scan_knp`` found in a buffer.

    Per block (fast or slow, in order): ``block_start``/``block_end`` (byte span, the ``EOS``
    line included), ``block_line`` (lines of the buffer before it), ``block_fast`` (1 when
    scanned, 0 when slow) and ``block_fast_index`` (its sentence in the corpus arrays, -1 when
    slow). Over the fast blocks only: the corpus arrays ``surface``, ``pos1``, ``pos2``,
    ``conj_form``, ``morpheme_ptr``, ``chunk_ptr``, ``chunk_bounds`` (as
    ``parser.bunsetsu.bunsetsu_decoder.Corpus`` takes them) and per bunsetsu ``head_start``,
    ``head_end`` (byte span of ``HEAD TYPE`` in the buffer), ``old_heads`` and ``old_types``;
    a CaboCha scan (parser/formats/cabocha_scan.pyx) also gives per bunsetsu ``score_start``
    and ``score_end`` (the byte span of the SCORE field, -1 when the line has none) and per
    fast block ``block_tagset`` (its dictionary's code). ``end`` is the byte after the last
    complete block, ``n_lines`` the lines before it, and ``valid_utf8`` tells whether the
    bytes before ``end`` are valid UTF-8.
    """

    @property
    def n_blocks(self) -> int:
        return len(self.block_start)

    @property
    def n_fast(self) -> int:
        return len(self.morpheme_ptr) - 1

    @property
    def all_fast(self) -> bool:
        return bool(self.block_fast.all())

    def unknown_pos1(self) -> dict:
        """Each pos1 of the fast blocks that the lexicon lacks, with its count, in the order
        of first appearance."""
        cdef string tag
        return {tag.decode("utf-8"): self.unknown_counts[tag] for tag in self.unknown_order}

    def rewrite(self, new_heads, Py_ssize_t first_block, Py_ssize_t last_block) -> bytes:
        """The bytes of blocks ``first_block`` to ``last_block - 1`` (all fast) with the heads
        of ``new_heads`` (flat over the bunsetsu of all fast blocks, relative to each
        sentence): a ``HEAD TYPE`` token is kept when its head is unchanged and becomes
        ``<head>D`` otherwise, and so does the SCORE field of a CaboCha bunsetsu line, which
        becomes ``0.000000`` (polyparse's decoders keep no score); every other byte is
        copied."""
        out = bytearray(self.rewritten_size(new_heads, first_block, last_block))
        self.rewrite_into(new_heads, first_block, last_block, out, 0)
        return bytes(out)

    def rewritten_size(self, new_heads, Py_ssize_t first_block, Py_ssize_t last_block) -> int:
        """The number of bytes ``rewrite`` gives for these blocks and heads."""
        cdef const int32_t[::1] heads = np.ascontiguousarray(new_heads, dtype=np.int32)
        cdef int64_t bounds[4]
        if self._bounds(heads, first_block, last_block, bounds):
            return 0
        return _rewritten_size(heads, self.old_heads, self.head_start, self.head_end,
                               self.score_start, self.score_end, bounds[0], bounds[1],
                               bounds[2], bounds[3])

    def rewrite_into(self, new_heads, Py_ssize_t first_block, Py_ssize_t last_block,
                     unsigned char[::1] target, Py_ssize_t offset) -> int:
        """``rewrite`` into ``target`` (a writable buffer, such as a bytearray kept from batch
        to batch) from ``offset`` on; the offset after the bytes written. ValueError when they
        do not fit."""
        cdef const int32_t[::1] heads = np.ascontiguousarray(new_heads, dtype=np.int32)
        cdef const int32_t[::1] old_heads = self.old_heads
        cdef const int64_t[::1] head_start = self.head_start
        cdef const int64_t[::1] head_end = self.head_end
        cdef const int64_t[::1] score_start = self.score_start
        cdef const int64_t[::1] score_end = self.score_end
        cdef int64_t bounds[4]
        cdef int64_t size
        if self._bounds(heads, first_block, last_block, bounds):
            return offset
        size = _rewritten_size(heads, old_heads, head_start, head_end, score_start, score_end,
                               bounds[0], bounds[1], bounds[2], bounds[3])
        if offset < 0 or offset + size > target.shape[0]:
            raise ValueError(f"{size} bytes from offset {offset} do not fit a buffer of "
                             f"{target.shape[0]}")
        with nogil:
            _rewrite(&self.buffer[0], &target[offset], heads, old_heads, head_start, head_end,
                     score_start, score_end, bounds[0], bounds[1], bounds[2], bounds[3])
        return offset + size

    cdef int _bounds(self, const int32_t[::1] heads, Py_ssize_t first_block,
                     Py_ssize_t last_block, int64_t* bounds) except -1:
        # Check a rewrite of blocks first_block to last_block - 1 and set bounds to its first
        # and end bunsetsu and its byte span; 1 when there are no blocks, else 0.
        cdef const int64_t[::1] starts = self.block_start
        cdef const int64_t[::1] fast_index = self.block_fast_index
        cdef const int64_t[::1] chunk_ptr = self.chunk_ptr
        cdef const int64_t[::1] ends = self.block_end
        cdef Py_ssize_t b
        if first_block < 0 or last_block > starts.shape[0] or first_block > last_block:
            raise IndexError(f"blocks {first_block}:{last_block} of {starts.shape[0]}")
        if heads.shape[0] != len(self.old_heads):
            raise ValueError(f"{heads.shape[0]} heads for {len(self.old_heads)} bunsetsu")
        if first_block == last_block:
            return 1
        for b in range(first_block, last_block):
            if fast_index[b] < 0:
                raise ValueError(f"block {b} is slow; rewrite takes fast blocks only")
        bounds[0] = chunk_ptr[fast_index[first_block]]
        bounds[1] = chunk_ptr[fast_index[last_block - 1] + 1]
        bounds[2] = starts[first_block]
        bounds[3] = ends[last_block - 1]
        return 0


cdef inline int _digits(int32_t value) noexcept nogil:
    cdef int n = 1
    if value < 0:
        n += 1
        value = -value
    while value >= 10:
        value //= 10
        n += 1
    return n


# What a changed head's SCORE field becomes (parser/formats/bunsetsu_convert.py's NO_SCORE).
cdef const char* NO_SCORE = b"0.000000"
cdef int NO_SCORE_LENGTH = 8


cdef int64_t _rewritten_size(const int32_t[::1] heads, const int32_t[::1] old_heads,
                             const int64_t[::1] head_start, const int64_t[::1] head_end,
                             const int64_t[::1] score_start, const int64_t[::1] score_end,
                             int64_t c0, int64_t c1, int64_t begin, int64_t finish) noexcept nogil:
    cdef int64_t size = finish - begin
    cdef int64_t c
    cdef bint scores = score_start.shape[0] > 0
    for c in range(c0, c1):
        if heads[c] != old_heads[c]:
            size += _digits(heads[c]) + 1 - (head_end[c] - head_start[c])
            if scores and score_start[c] >= 0:
                size += NO_SCORE_LENGTH - (score_end[c] - score_start[c])
    return size


cdef void _rewrite(const unsigned char* source, unsigned char* target,
                   const int32_t[::1] heads, const int32_t[::1] old_heads,
                   const int64_t[::1] head_start, const int64_t[::1] head_end,
                   const int64_t[::1] score_start, const int64_t[::1] score_end,
                   int64_t c0, int64_t c1, int64_t begin, int64_t finish) noexcept nogil:
    cdef bint scores = score_start.shape[0] > 0
    cdef int64_t position = begin
    cdef int64_t written = 0
    cdef int64_t c
    cdef int n, k
    cdef int32_t value
    for c in range(c0, c1):
        if heads[c] == old_heads[c]:
            continue
        memcpy(target + written, source + position, head_start[c] - position)
        written += head_start[c] - position
        value = heads[c]
        n = _digits(value)
        if value < 0:
            target[written] = c'-'
            value = -value
        k = n - 1
        while True:
            target[written + k] = <unsigned char>(c'0' + value % 10)
            value //= 10
            k -= 1
            if value == 0:
                break
        target[written + n] = c'D'
        written += n + 1
        position = head_end[c]
        if scores and score_start[c] >= 0:
            memcpy(target + written, source + position, score_start[c] - position)
            written += score_start[c] - position
            memcpy(target + written, NO_SCORE, NO_SCORE_LENGTH)
            written += NO_SCORE_LENGTH
            position = score_end[c]
    memcpy(target + written, source + position, finish - position)


cdef inline bint _is_type(unsigned char c) noexcept nogil:
    return c == c'D' or c == c'P' or c == c'A' or c == c'I'


cdef extern from *:
    """
    /* The position of the first byte (in memory order) with its high bit set, in a word of
       eight bytes loaded by memcpy and masked to their high bits (not zero). */
    static inline int polyparse_first_high_byte(unsigned long long word) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        return __builtin_clzll(word) >> 3;
    #else
        return __builtin_ctzll(word) >> 3;
    #endif
    }
    """
    int first_high_byte "polyparse_first_high_byte"(unsigned long long word) noexcept nogil


cdef uint64_t LOW_SEVEN_BITS = 0x7F7F7F7F7F7F7F7F
cdef uint64_t SPACES = 0x2020202020202020
cdef uint64_t BACKSLASHES = 0x5C5C5C5C5C5C5C5C


cdef inline uint64_t _zero_bytes(uint64_t word) noexcept nogil:
    # The high bit of each byte of word that is zero, and no other bit (exact per byte: no
    # borrow crosses from one byte into the next).
    return ~(((word & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | word | LOW_SEVEN_BITS)


cdef inline int64_t _space_or_backslash(const unsigned char* line, int64_t i,
                                        int64_t length) noexcept nogil:
    # The first position from i on that holds a space or a backslash (length when none): eight
    # bytes at a time, each word compared with both bytes at once (SWAR).
    cdef uint64_t word, found
    while i + 8 <= length:
        memcpy(&word, line + i, 8)
        found = _zero_bytes(word ^ SPACES) | _zero_bytes(word ^ BACKSLASHES)
        if found:
            return i + first_high_byte(found)
        i += 8
    while i < length and line[i] != c' ' and line[i] != c'\\':
        i += 1
    return i


cdef bint _scan_morpheme(const unsigned char* line, int64_t length, int64_t line_start,
                         KnpLexicon lexicon, ScanBuffers* out) noexcept nogil:
    """Append the ids of one morpheme line; False when the line is not in the plain
    spelling."""
    cdef int64_t starts[11]
    cdef int64_t ends[11]
    cdef int field = 0
    cdef int64_t i = 0
    cdef int64_t field_start = 0
    cdef int32_t pos1
    while field < N_FIELDS:
        i = _space_or_backslash(line, i, length)
        if i < length and line[i] == c'\\':
            if i + 1 < length and line[i + 1] == c' ':
                return False
            i += 1
            continue
        if i == field_start:
            return False
        starts[field] = field_start
        ends[field] = i
        field += 1
        if i == length:
            break
        i += 1
        field_start = i
    if field < N_FIELDS:
        return False
    for field in range(4, N_FIELDS, 2):
        for i in range(starts[field], ends[field]):
            if not is_digit(line[i]):
                return False
    # The rest of the line only matters for JUMAN's escaped space.
    cdef const unsigned char* rest = line + ends[10]
    cdef const unsigned char* stop = line + length
    while rest < stop:
        rest = <const unsigned char*>memchr(rest, c'\\', stop - rest)
        if rest == NULL:
            break
        if rest + 1 < stop and rest[1] == c' ':
            return False
        rest += 1
    append(out.surface, lexicon.lookup(line + starts[0], ends[0] - starts[0]), out.failed)
    pos1 = lexicon.lookup(line + starts[3], ends[3] - starts[3])
    append(out.pos1, pos1, out.failed)
    append(out.pos2, lexicon.lookup(line + starts[5], ends[5] - starts[5]), out.failed)
    append(out.conj_form, lexicon.lookup(line + starts[9], ends[9] - starts[9]), out.failed)
    if pos1 == UNKNOWN_ID:
        append(out.unknown, Span(line_start + starts[3], ends[3] - starts[3]), out.failed)
    return True


cdef bint _scan_bunsetsu(const unsigned char* line, int64_t length, int64_t line_start,
                         ScanBuffers* out) noexcept nogil:
    """Append the head span, head and type of a ``* HEAD TYPE`` line; False otherwise."""
    cdef int64_t i = 2
    cdef int64_t head
    cdef bint negative = False
    if length < 4 or line[1] != c' ':
        return False
    if line[i] == c'-':
        negative = True
        i += 1
    head = read_number(line, &i, length, MAX_HEAD_DIGITS)
    if head < 0 or i == length or not _is_type(line[i]):
        return False
    if i + 1 < length and line[i + 1] != c' ':
        return False
    append(out.head_start, line_start + 2, out.failed)
    append(out.head_end, line_start + i + 1, out.failed)
    append(out.old_heads, <int32_t>(-head if negative else head), out.failed)
    append[uint8_t](out.old_types, line[i], out.failed)
    return True


cdef bint _has_id_fields(const unsigned char* line, int64_t length) noexcept nogil:
    """Whether the line has seven consecutive space-separated fields, digits, any, digits,
    any, digits, any, digits (the ids and fields 5 to 11 of a morpheme line): without them
    neither the plain split nor the escaped-space pattern of parser.formats.knp can take the
    line for a morpheme."""
    # kinds[k]: the kind of the k-th field before the current one (0 empty, 1 other, 2 digits).
    cdef int kinds[7]
    cdef int kind = 2
    cdef int64_t i
    cdef int64_t field_length = 0
    cdef int k
    for k in range(7):
        kinds[k] = 0
    for i in range(length + 1):
        if i == length or line[i] == c' ':
            for k in range(6, 0, -1):
                kinds[k] = kinds[k - 1]
            kinds[0] = 0 if field_length == 0 else kind
            if kinds[0] == 2 and kinds[1] >= 1 and kinds[2] == 2 and kinds[3] >= 1 and \
                    kinds[4] == 2 and kinds[5] >= 1 and kinds[6] == 2:
                return True
            kind = 2
            field_length = 0
        else:
            field_length += 1
            if not is_digit(line[i]):
                kind = 1
    return False


cdef void _scan(const unsigned char* data, int64_t n, void* lexicon, ScanBuffers* out,
                int64_t* end, int64_t* n_lines) noexcept nogil:
    cdef LineWalk walk
    cdef BlockState block
    cdef const unsigned char* line
    cdef int64_t length
    cdef int64_t block_morphemes = 0
    cdef unsigned char first_byte
    append[int64_t](out.morpheme_ptr, 0, out.failed)
    append[int64_t](out.chunk_ptr, 0, out.failed)
    end[0] = 0
    n_lines[0] = 0
    walk_start(&walk, data, n)
    block_begins(&block, out)
    while next_line(&walk, &line, &length, &block.slow):
        if is_eos(line, length):
            if length == 4 or block_morphemes == 0 or block.last_chunk_start == block_morphemes:
                block.slow = True
            if block.slow:
                drop_block(out, &block)
            else:
                append(out.chunk_bounds, <int32_t>block_morphemes, out.failed)
            end_block(&walk, out, not block.slow, end, n_lines)
            block_begins(&block, out)
            block_morphemes = 0
        elif not block.slow:
            if length == 0:
                block.slow = True
            else:
                first_byte = line[0]
                if first_byte == c'*':
                    if (block.n_chunks and block.last_chunk_start == block_morphemes) or \
                            not _scan_bunsetsu(line, length, walk.line_start, out):
                        block.slow = True
                    else:
                        block.n_chunks += 1
                        block.last_chunk_start = block_morphemes
                        append(out.chunk_bounds, <int32_t>block_morphemes, out.failed)
                elif first_byte == c'+':
                    if length < 3 or not (line[2] == c'-' or is_digit(line[2])):
                        block.slow = True
                elif first_byte == c'#':
                    if block.n_chunks or block_morphemes or _has_id_fields(line, length):
                        block.slow = True
                elif first_byte == c'@':
                    block.slow = True
                elif block.n_chunks == 0 or not _scan_morpheme(line, length, walk.line_start,
                                                               <KnpLexicon>lexicon, out):
                    block.slow = True
                else:
                    block_morphemes += 1
    drop_block(out, &block)


cdef uint64_t HIGH_BITS = 0x8080808080808080


cdef extern from *:
    """
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #define POLYPARSE_UTF8_SSSE3 1
    #include <tmmintrin.h>
    /* The bits of Keiser & Lemire 2021 ("Validating UTF-8 in less than one instruction per
       byte", Software: Practice and Experience, section 6, the lookup algorithm): each names
       an error that a pair of bytes shows by the high nibble of the first, its low nibble
       and the high nibble of the second; a byte is in error when the three lookups share a
       bit. TWO_CONTS (a continuation after a continuation) is an error unless the byte is
       the third or fourth of a sequence, which the bytes two and three before it tell. */
    #define PP_TOO_SHORT 0x01
    #define PP_TOO_LONG 0x02
    #define PP_OVERLONG_3 0x04
    #define PP_TOO_LARGE 0x08
    #define PP_SURROGATE 0x10
    #define PP_OVERLONG_2 0x20
    #define PP_TOO_LARGE_1000 0x40
    #define PP_OVERLONG_4 0x40
    #define PP_TWO_CONTS 0x80
    #define PP_CARRY (PP_TOO_SHORT | PP_TOO_LONG | PP_TWO_CONTS)
    #define PP_LARGE (PP_CARRY | PP_TOO_LARGE | PP_TOO_LARGE_1000)
    #define PP_AFTER (PP_TOO_LONG | PP_OVERLONG_2 | PP_TWO_CONTS)

    __attribute__((target("ssse3")))
    static long long polyparse_utf8_blocks_ssse3(const unsigned char* data, long long n) {
        const __m128i first_high = _mm_setr_epi8(
            PP_TOO_LONG, PP_TOO_LONG, PP_TOO_LONG, PP_TOO_LONG,
            PP_TOO_LONG, PP_TOO_LONG, PP_TOO_LONG, PP_TOO_LONG,
            PP_TWO_CONTS, PP_TWO_CONTS, PP_TWO_CONTS, PP_TWO_CONTS,
            PP_TOO_SHORT | PP_OVERLONG_2, PP_TOO_SHORT,
            PP_TOO_SHORT | PP_OVERLONG_3 | PP_SURROGATE,
            PP_TOO_SHORT | PP_TOO_LARGE | PP_TOO_LARGE_1000 | PP_OVERLONG_4);
        const __m128i first_low = _mm_setr_epi8(
            PP_CARRY | PP_OVERLONG_3 | PP_OVERLONG_2 | PP_OVERLONG_4,
            PP_CARRY | PP_OVERLONG_2, PP_CARRY, PP_CARRY, PP_CARRY | PP_TOO_LARGE,
            PP_LARGE, PP_LARGE, PP_LARGE, PP_LARGE, PP_LARGE, PP_LARGE, PP_LARGE, PP_LARGE,
            PP_LARGE | PP_SURROGATE, PP_LARGE, PP_LARGE);
        const __m128i second_high = _mm_setr_epi8(
            PP_TOO_SHORT, PP_TOO_SHORT, PP_TOO_SHORT, PP_TOO_SHORT,
            PP_TOO_SHORT, PP_TOO_SHORT, PP_TOO_SHORT, PP_TOO_SHORT,
            PP_AFTER | PP_OVERLONG_3 | PP_TOO_LARGE_1000 | PP_OVERLONG_4,
            PP_AFTER | PP_OVERLONG_3 | PP_TOO_LARGE,
            PP_AFTER | PP_SURROGATE | PP_TOO_LARGE, PP_AFTER | PP_SURROGATE | PP_TOO_LARGE,
            PP_TOO_SHORT, PP_TOO_SHORT, PP_TOO_SHORT, PP_TOO_SHORT);
        const __m128i nibble = _mm_set1_epi8(0x0F);
        const __m128i high_bit = _mm_set1_epi8((char)0x80);
        const __m128i third = _mm_set1_epi8((char)(0xE0 - 0x80));
        const __m128i fourth = _mm_set1_epi8((char)(0xF0 - 0x80));
        __m128i previous = _mm_setzero_si128(), error = _mm_setzero_si128();
        long long i = 0, k;
        for (; i + 16 <= n; i += 16) {
            __m128i bytes = _mm_loadu_si128((const __m128i*)(data + i));
            __m128i before1 = _mm_alignr_epi8(bytes, previous, 15);
            __m128i before2 = _mm_alignr_epi8(bytes, previous, 14);
            __m128i before3 = _mm_alignr_epi8(bytes, previous, 13);
            __m128i found = _mm_and_si128(
                _mm_and_si128(
                    _mm_shuffle_epi8(first_high,
                                     _mm_and_si128(_mm_srli_epi16(before1, 4), nibble)),
                    _mm_shuffle_epi8(first_low, _mm_and_si128(before1, nibble))),
                _mm_shuffle_epi8(second_high, _mm_and_si128(_mm_srli_epi16(bytes, 4), nibble)));
            __m128i later = _mm_and_si128(_mm_or_si128(_mm_subs_epu8(before2, third),
                                                       _mm_subs_epu8(before3, fourth)),
                                          high_bit);
            error = _mm_or_si128(error, _mm_xor_si128(later, found));
            previous = bytes;
        }
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(error, _mm_setzero_si128())) != 0xFFFF) {
            return -1;
        }
        for (k = 1; k <= 3 && i - k >= 0; k++) {
            if (data[i - k] >= 0xC0) {
                return i - k;
            }
        }
        return i;
    }
    #endif

    /* UTF-8 checked sixteen bytes at a time by polyparse_utf8_blocks_ssse3 on x86-64 CPUs
       that have SSSE3: the offset from which a plain check must go on (the lead byte of a
       sequence that the last whole block leaves open, else the end of the blocks), or -1
       when the blocks are not UTF-8; 0 (all of it to the plain check) elsewhere. */
    static inline long long polyparse_utf8_blocks(const unsigned char* data, long long n) {
    #if defined(POLYPARSE_UTF8_SSSE3)
        if (__builtin_cpu_supports("ssse3")) {
            return polyparse_utf8_blocks_ssse3(data, n);
        }
    #endif
        (void)data;
        (void)n;
        return 0;
    }
    """
    long long utf8_blocks "polyparse_utf8_blocks"(const unsigned char* data,
                                                 long long n) noexcept nogil


cdef int _utf8_sequence(const unsigned char* data, int64_t n) noexcept nogil:
    """The length of the UTF-8 sequence at data (n bytes left), 0 when it is not one that
    Python's strict decoder takes (the byte ranges of table 3-7 of the Unicode standard: no
    overlong forms, no surrogates, nothing above U+10FFFF)."""
    cdef unsigned char c = data[0]
    cdef unsigned char lo = 0x80, hi = 0xBF
    cdef int follow, k
    if c < 0x80:
        return 1
    if 0xC2 <= c <= 0xDF:
        follow = 1
    elif 0xE0 <= c <= 0xEF:
        follow = 2
        if c == 0xE0:
            lo = 0xA0
        elif c == 0xED:
            hi = 0x9F
    elif 0xF0 <= c <= 0xF4:
        follow = 3
        if c == 0xF0:
            lo = 0x90
        elif c == 0xF4:
            hi = 0x8F
    else:
        return 0
    if follow >= n or not (lo <= data[1] <= hi):
        return 0
    for k in range(2, follow + 1):
        if not (0x80 <= data[k] <= 0xBF):
            return 0
    return follow + 1


cdef inline bint _common_three_bytes(const unsigned char* data, int64_t i,
                                     int64_t n) noexcept nogil:
    # A three-byte sequence led by E1-EC or EE-EF at i (any two continuation bytes are valid).
    cdef unsigned char c
    if i + 2 >= n:
        return False
    c = data[i]
    return ((0xE1 <= c <= 0xEC) or c >= 0xEE) and c <= 0xEF and \
        (data[i + 1] & 0xC0) == 0x80 and (data[i + 2] & 0xC0) == 0x80


cdef bint is_valid_utf8(const unsigned char* data, int64_t n) noexcept nogil:
    """Whether data is UTF-8 as Python's strict decoder takes it (_utf8_sequence): sixteen
    bytes at a time (utf8_blocks), then byte by byte from where the blocks leave off (the
    whole of data without SSSE3). There the common cases go first: ASCII eight bytes at a time
    (one test of their high bits, then a jump to the first byte that has it), and three-byte
    sequences led by E1-EC or EE-EF (U+1000-CFFF and U+E000-FFFF, which hold kana and kanji:
    any two continuation bytes are valid)."""
    cdef int64_t i = utf8_blocks(data, n)
    if i < 0:
        return False
    return _is_valid_utf8_from(data, i, n)


def utf8_valid(buffer) -> bool:
    """is_valid_utf8 of a bytes-like buffer, and the byte-by-byte check alone must agree: for
    tests (ValueError when they do not)."""
    cdef const unsigned char[::1] data = buffer
    cdef int64_t n = data.shape[0]
    if n == 0:
        return True
    whole = is_valid_utf8(&data[0], n)
    if whole != _is_valid_utf8_from(&data[0], 0, n):
        raise ValueError("the sixteen-byte check and the byte-by-byte check disagree")
    return whole


cdef bint _is_valid_utf8_from(const unsigned char* data, int64_t i, int64_t n) noexcept nogil:
    # The byte-by-byte check of data[i:n] (i at the start of a sequence).
    cdef uint64_t word
    cdef unsigned char c
    cdef int length
    while i < n:
        if i + 8 <= n:
            memcpy(&word, data + i, 8)
            word &= HIGH_BITS
            if word == 0:
                i += 8
                continue
            i += first_high_byte(word)
        c = data[i]
        if c < 0x80:
            i += 1
        elif _common_three_bytes(data, i, n):
            # Kana and kanji come in runs: stay on them.
            i += 3
            while _common_three_bytes(data, i, n):
                i += 3
        else:
            length = _utf8_sequence(data + i, n - i)
            if length == 0:
                return False
            i += length
    return True


ctypedef fused _item_t:
    int64_t
    int32_t
    uint8_t


cdef object _array(const _item_t* values, size_t n):
    # A NumPy copy of the n items at values, of the matching dtype.
    if _item_t is int64_t:
        array = np.empty(n, dtype=np.int64)
    elif _item_t is int32_t:
        array = np.empty(n, dtype=np.int32)
    else:
        array = np.empty(n, dtype=np.uint8)
    cdef _item_t[::1] view = array
    if n:
        memcpy(&view[0], values, n * sizeof(_item_t))
    return array


def scan_knp(KnpLexicon lexicon, buffer) -> KnpScan:
    """Scan the complete blocks of ``buffer`` (bytes-like, UTF-8 KNP text); see the module
    notes. The buffer is kept by the result, for ``KnpScan.rewrite``."""
    return run_scan(buffer, _scan, lexicon)


cdef KnpScan run_scan(const unsigned char[::1] data, BlockScan scan, object scanner):
    """The KnpScan of data by a format's scan with its scanner (the GIL released meanwhile)."""
    cdef ScanBuffers out
    cdef void* held = <void*>scanner
    cdef int64_t end = 0, n_lines = 0
    cdef bint valid = True
    out.failed = 0
    if data.shape[0]:
        with nogil:
            scan(&data[0], data.shape[0], held, &out, &end, &n_lines)
            valid = is_valid_utf8(&data[0], end)
    return scan_result(data, &out, end, n_lines, valid)


cdef KnpScan scan_result(const unsigned char[::1] data, ScanBuffers* out, int64_t end,
                         int64_t n_lines, bint valid_utf8):
    """The KnpScan of what a scanner put into out (NumPy copies of its buffers) over data."""
    cdef KnpScan scan = KnpScan.__new__(KnpScan)
    cdef Span span
    cdef string key
    if out.failed:
        raise MemoryError()
    if out.morpheme_ptr.empty():
        out.morpheme_ptr.push_back(0)
        out.chunk_ptr.push_back(0)
    scan.buffer = data
    scan.valid_utf8 = valid_utf8
    for span in out.unknown:
        key.assign(<const char*>&data[span.start], span.length)
        if scan.unknown_counts.count(key) == 0:
            scan.unknown_order.push_back(key)
        scan.unknown_counts[key] += 1
    scan.end = end
    scan.n_lines = n_lines
    scan.block_start = _array(out.block_start.data(), out.block_start.size())
    scan.block_end = _array(out.block_end.data(), out.block_end.size())
    scan.block_line = _array(out.block_line.data(), out.block_line.size())
    scan.block_fast = _array(out.block_fast.data(), out.block_fast.size())
    scan.block_fast_index = _array(out.block_fast_index.data(), out.block_fast_index.size())
    scan.surface = _array(out.surface.data(), out.surface.size())
    scan.pos1 = _array(out.pos1.data(), out.pos1.size())
    scan.pos2 = _array(out.pos2.data(), out.pos2.size())
    scan.conj_form = _array(out.conj_form.data(), out.conj_form.size())
    scan.morpheme_ptr = _array(out.morpheme_ptr.data(), out.morpheme_ptr.size())
    scan.chunk_ptr = _array(out.chunk_ptr.data(), out.chunk_ptr.size())
    scan.chunk_bounds = _array(out.chunk_bounds.data(), out.chunk_bounds.size())
    scan.head_start = _array(out.head_start.data(), out.head_start.size())
    scan.head_end = _array(out.head_end.data(), out.head_end.size())
    scan.old_heads = _array(out.old_heads.data(), out.old_heads.size())
    scan.old_types = _array(out.old_types.data(), out.old_types.size())
    scan.score_start = _array(out.score_start.data(), out.score_start.size())
    scan.score_end = _array(out.score_end.data(), out.score_end.size())
    scan.block_tagset = _array(out.block_tagset.data(), out.block_tagset.size())
    return scan
