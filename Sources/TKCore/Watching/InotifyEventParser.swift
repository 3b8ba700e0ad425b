/// Decodes the bytes `read(2)` returns from an inotify descriptor into events.
///
/// Pure: touches no kernel state, so tests feed it hand-built buffers.
public enum InotifyEventParser {
    /// The size of the fixed part of `struct inotify_event` (wd, mask, cookie, len).
    public static let headerSize = 16

    /// Parses every complete event in `buffer` (native byte order, as the kernel writes it).
    ///
    /// A truncated trailing event is dropped (the kernel never returns one). Names are cut at
    /// their first NUL byte, which removes the kernel's padding.
    /// - Parameter buffer: the bytes of one or more `struct inotify_event` records.
    /// - Returns: the events in order.
    public static func parse(_ buffer: UnsafeRawBufferPointer) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = 0
        while buffer.count - offset >= headerSize {
            let wd = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + headerSize
            guard length <= buffer.count - nameStart else { break }
            let nameBytes = UnsafeRawBufferPointer(rebasing: buffer[nameStart..<(nameStart + length)])
            let nameLength = nameBytes.firstIndex(of: 0) ?? nameBytes.count
            events.append(
                InotifyEvent(
                    watch: WatchDescriptor(rawValue: wd), mask: InotifyEvent.Mask(rawValue: mask), cookie: cookie,
                    name: Array(nameBytes[0..<nameLength])))
            offset = nameStart + length
        }
        return events
    }

    /// Parses events from a byte array (convenience for tests and injection).
    public static func parse(_ bytes: [UInt8]) -> [InotifyEvent] {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Encodes events the way the kernel does, padding names with NULs to `alignment` bytes.
    ///
    /// The inverse of `parse`, for tests and for injecting synthetic events.
    public static func encode(_ events: [InotifyEvent], alignment: Int = 16) -> [UInt8] {
        var out: [UInt8] = []
        for event in events {
            var length = 0
            if !event.name.isEmpty {
                length = event.name.count + 1
                let align = max(alignment, 1)
                length = (length + align - 1) / align * align
            }
            withUnsafeBytes(of: event.watch.rawValue) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: event.mask.rawValue) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: event.cookie) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt32(length)) { out.append(contentsOf: $0) }
            out.append(contentsOf: event.name)
            if length > event.name.count { out.append(contentsOf: [UInt8](repeating: 0, count: length - event.name.count)) }
        }
        return out
    }
}
