/// A block of prose in a document: a paragraph or heading (also inside list items and block quotes).
///
/// `range` is a byte range of the original document bytes. `masks` are the sub-ranges that are not
/// prose (inline code, URLs, link targets, inline HTML, container prefixes…), sorted and disjoint.
public struct ProseBlock: Sendable, Equatable {
    /// What a masked range is. `markup` reads as white space (block-quote `>` prefixes, list and
    /// heading markers, indentation); the others are opaque: not words, and they break phrases.
    public enum MaskKind: UInt8, Sendable, Equatable {
        case markup, code, url, link, html
    }

    public struct Mask: Sendable, Equatable {
        public var range: Range<Int>
        public var kind: MaskKind
        public init(_ range: Range<Int>, _ kind: MaskKind) { self.range = range; self.kind = kind }
    }

    public var range: Range<Int>
    public var masks: [Mask]
    public var isHeading: Bool
    /// 1…6 for headings, 0 for paragraphs.
    public var headingLevel: Int
    /// 1-based line of `range.lowerBound`.
    public var line: Int
    /// 1-based line of the last byte of the block.
    public var endLine: Int
    /// Inside a list item.
    public var inListItem: Bool
    /// Inside a block quote.
    public var inBlockQuote: Bool

    public init(range: Range<Int>, masks: [Mask] = [], isHeading: Bool = false, headingLevel: Int = 0,
                line: Int = 1, endLine: Int = 1, inListItem: Bool = false, inBlockQuote: Bool = false) {
        self.range = range; self.masks = masks; self.isHeading = isHeading; self.headingLevel = headingLevel
        self.line = line; self.endLine = endLine; self.inListItem = inListItem; self.inBlockQuote = inBlockQuote
    }

    /// The prose of the block as text, each masked range replaced by one space (offsets are not
    /// preserved; for tests and debugging).
    public func plainText(in bytes: [UInt8]) -> String {
        var out = [UInt8]()
        var i = range.lowerBound
        var m = 0
        while i < range.upperBound {
            if m < masks.count, masks[m].range.lowerBound <= i {
                out.append(32)
                i = max(i, masks[m].range.upperBound)
                m += 1
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
