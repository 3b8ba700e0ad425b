/// Byte-level character classes shared by word counting and the heuristics tokenizer.
///
/// Works on UTF-8 bytes without building Swift `String`s: ASCII is classified by table, other
/// scalars are decoded and classified by range (letters of every script count as word characters;
/// general punctuation, symbols, spaces and emoji do not).
public enum TextClass {
    /// Decodes the scalar starting at `i` (invalid bytes decode as U+FFFD with length 1).
    @inline(__always)
    public static func decode(_ p: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> (scalar: UInt32, length: Int) {
        let b0 = UInt32(p[i])
        if b0 < 0x80 { return (b0, 1) }
        if b0 >= 0xC2, b0 <= 0xDF, i + 1 < end {
            let b1 = UInt32(p[i + 1])
            if b1 & 0xC0 == 0x80 { return ((b0 & 0x1F) << 6 | (b1 & 0x3F), 2) }
        } else if b0 >= 0xE0, b0 <= 0xEF, i + 2 < end {
            let b1 = UInt32(p[i + 1]), b2 = UInt32(p[i + 2])
            if b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80 {
                let s = (b0 & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F)
                if s >= 0x800, !(0xD800...0xDFFF).contains(s) { return (s, 3) }
            }
        } else if b0 >= 0xF0, b0 <= 0xF4, i + 3 < end {
            let b1 = UInt32(p[i + 1]), b2 = UInt32(p[i + 2]), b3 = UInt32(p[i + 3])
            if b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80, b3 & 0xC0 == 0x80 {
                let s = (b0 & 0x07) << 18 | (b1 & 0x3F) << 12 | (b2 & 0x3F) << 6 | (b3 & 0x3F)
                if s >= 0x10000, s <= 0x10FFFF { return (s, 4) }
            }
        }
        return (0xFFFD, 1)
    }

    /// Whether an ASCII byte is a letter or digit.
    @inline(__always)
    public static func isASCIIWordByte(_ b: UInt8) -> Bool {
        (b >= 97 && b <= 122) || (b >= 65 && b <= 90) || (b >= 48 && b <= 57)
    }

    /// Whether a non-ASCII scalar is part of a word (a letter, digit or combining mark of any script).
    @inline(__always)
    public static func isWordScalar(_ s: UInt32) -> Bool {
        if s < 0x80 { return isASCIIWordByte(UInt8(s)) }
        switch s {
        case 0x80...0xBF: return s == 0xAA || s == 0xB5 || s == 0xBA   // Latin-1 punctuation and symbols
        case 0xD7, 0xF7: return false
        case 0x2000...0x2BFF: return false      // general punctuation, symbols, arrows, dingbats
        case 0x2E00...0x2E7F, 0x3000...0x303F: return false
        case 0xFE00...0xFE0F, 0xFEFF, 0xFFF0...0xFFFF: return false
        case 0xFF00...0xFF0F, 0xFF1A...0xFF20: return false   // fullwidth punctuation
        case 0x1F000...0x1FAFF: return false    // emoji and pictographs
        default: return true
        }
    }
}
