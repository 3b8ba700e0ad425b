import CCurl
import Foundation
import Synchronization

/// HTTP through libcurl's multi interface: one thread per process runs every transfer and sleeps in
/// `curl_multi_poll` while it waits, so a minute spent waiting for a model costs no CPU (the
/// URLSession of FoundationNetworking kept a core busy). Connections are kept and reused across
/// requests; streamed bodies arrive as they come; the first-byte and idle watchdog runs on the same
/// thread; cancelling the consuming task ends the transfer.
public struct CurlTransport: HTTPTransport {
    public init() {}

    /// Loads libcurl and starts the client now (about 10 ms: libcurl and the two dozen libraries
    /// it brings), for a command sure to make a request: it pays the loading while it does other
    /// work, on another core, rather than when its first request waits for it.
    public static func prepare() { _ = CurlClient.shared }

    public func events(for request: HTTPRequest, timeouts: HTTPTimeouts) -> AsyncThrowingStream<HTTPEvent, any Error> {
        AsyncThrowingStream { continuation in
            guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host != nil else {
                continuation.finish(throwing: HTTPTransportError.invalidURL(request.url))
                return
            }
            let client: CurlClient
            switch CurlClient.shared {
            case .success(let c): client = c
            case .failure(let why): continuation.finish(throwing: why); return
            }
            let transfer = CurlTransfer(request: request, timeouts: timeouts, continuation: continuation)
            continuation.onTermination = { _ in transfer.cancel() }
            client.submit(transfer)
        }
    }
}

/// The process's one libcurl multi handle and the thread that drives it.
///
/// `@unchecked Sendable`: the multi handle and `active` are touched only by the client's own thread
/// (started in `init`); other threads only append to `inbox` (behind a Mutex) and call
/// `curl_multi_wakeup`, which libcurl documents as safe to call from any thread.
final class CurlClient: @unchecked Sendable {
    /// The process's client, made on the first request; or why libcurl cannot be used (the library
    /// is loaded then, not at start: see `tk_curl.h`).
    static let shared: Result<CurlClient, HTTPTransportError> = {
        if let why = loadFailure(library: nil) { return .failure(why) }
        return .success(CurlClient())
    }()

    /// Loads libcurl (`library` nil: the system's, once per process; a name: that file, for tests)
    /// and says why it cannot be used, or nil when it can.
    static func loadFailure(library: String?) -> HTTPTransportError? {
        var error = [CChar](repeating: 0, count: 512)
        let ok = library.map { tk_curl_load_named($0, &error, error.count) } ?? tk_curl_load(&error, error.count)
        guard ok == 0 else { return nil }
        let why = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .cannotConnect("libcurl cannot be loaded (\(why)); install the libcurl4 package")
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex<[CurlTransfer]>([])
    /// The transfers in flight, by easy handle (client thread only).
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    private init() {
        tk_curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard let m = tk_curl_multi_init() else { fatalError("libcurl: curl_multi_init failed (out of memory)") }
        multi = m
        let thread = Thread { [self] in self.run() }
        thread.name = "tk-http"
        thread.start()
    }

    /// Hands a transfer to the client thread.
    func submit(_ transfer: CurlTransfer) {
        inbox.withLock { $0.append(transfer) }
        wake()
    }

    /// Makes the client thread look at its inbox and cancellations now.
    func wake() { tk_curl_multi_wakeup(multi) }

    private func run() {
        var running: Int32 = 0
        while true {
            for t in inbox.withLock({ q -> [CurlTransfer] in defer { q.removeAll() }; return q }) { start(t) }
            for (easy, t) in active where t.isCancelled { remove(easy, t, failure: .cancelled) }
            tk_curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let msg = tk_curl_multi_info_read(multi, &left) {
                guard msg.pointee.msg == CURLMSG_DONE, let easy = msg.pointee.easy_handle, let t = active[easy] else { continue }
                let code = tk_curl_msg_result(msg)
                remove(easy, t, failure: code == CURLE_OK ? nil : t.failure(code))
            }
            // The watchdog, and how long to sleep: until the next deadline (at most a minute).
            let now = ContinuousClock.now
            var sleep = Duration.seconds(60)
            for (easy, t) in active {
                let (deadline, failure) = t.deadline
                if deadline <= now { remove(easy, t, failure: failure) } else { sleep = min(sleep, deadline - now) }
            }
            let ms = sleep.components.seconds * 1000 + sleep.components.attoseconds / 1_000_000_000_000_000 + 1
            tk_curl_multi_poll(multi, nil, 0, Int32(clamping: ms), nil)
        }
    }

    private func start(_ t: CurlTransfer) {
        if t.isCancelled { t.finish(.cancelled); return }
        guard let easy = t.makeHandle() else {
            t.finish(.cannotConnect("libcurl could not start the request")); return
        }
        active[easy] = t
        tk_curl_multi_add_handle(multi, easy)
    }

    /// Ends a transfer: detaches its handle (the connection stays in the pool when it can) and
    /// finishes its stream (nil: cleanly).
    private func remove(_ easy: UnsafeMutableRawPointer, _ t: CurlTransfer, failure: HTTPTransportError?) {
        active[easy] = nil
        tk_curl_multi_remove_handle(multi, easy)
        t.finish(failure)
    }
}

/// One request on its way through the client.
///
/// `@unchecked Sendable`: everything mutable is touched only by the client thread (in `makeHandle`,
/// the libcurl callbacks, `deadline`, `failure` and `finish`, all called from it), except
/// `cancelled`, which is atomic.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    let timeouts: HTTPTimeouts
    let continuation: AsyncThrowingStream<HTTPEvent, any Error>.Continuation
    private let cancelled = Atomic<Bool>(false)

    private var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private let started = ContinuousClock.now
    private var lastActivity = ContinuousClock.now
    private var gotHead = false
    private var finished = false
    private var headers: [String: String] = [:]

    init(request: HTTPRequest, timeouts: HTTPTimeouts, continuation: AsyncThrowingStream<HTTPEvent, any Error>.Continuation) {
        self.request = request; self.timeouts = timeouts; self.continuation = continuation
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        if let easy { tk_curl_easy_cleanup(easy) }
        if let headerList { tk_curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Called when the consumer goes away (or the stream ends): the client drops the transfer.
    func cancel() {
        if !cancelled.exchange(true, ordering: .relaxed), case .success(let client) = CurlClient.shared { client.wake() }
    }

    /// When the transfer is overdue, and what it fails with then.
    var deadline: (ContinuousClock.Instant, HTTPTransportError) {
        if !gotHead { return (started + .seconds(timeouts.firstByte), .timedOut(timeouts.firstByte)) }
        let idle = timeouts.idle ?? timeouts.firstByte
        return (lastActivity + .seconds(idle), .stalled(idle))
    }

    /// An easy handle set up for the request, or nil.
    func makeHandle() -> UnsafeMutableRawPointer? {
        guard let h = tk_curl_easy_init() else { return nil }
        easy = h
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = tk_curl_set_str(h, CURLOPT_URL, request.url)
        _ = tk_curl_set_long(h, CURLOPT_NOSIGNAL, 1)
        _ = tk_curl_set_long(h, CURLOPT_TCP_KEEPALIVE, 1)
        _ = tk_curl_set_long(h, CURLOPT_FOLLOWLOCATION, 1)
        _ = tk_curl_set_long(h, CURLOPT_MAXREDIRS, 5)
        _ = tk_curl_set_long(h, CURLOPT_CONNECTTIMEOUT_MS, Int(max(1, timeouts.firstByte) * 1000))
        _ = tk_curl_set_str(h, CURLOPT_ACCEPT_ENCODING, "")   // gzip/deflate, decoded by libcurl
        _ = tk_curl_set_str(h, CURLOPT_USERAGENT, "tk-agent")
        _ = tk_curl_set_ptr(h, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = tk_curl_set_ptr(h, CURLOPT_PRIVATE, me)
        switch request.method.uppercased() {
        case "GET" where request.body == nil: _ = tk_curl_set_long(h, CURLOPT_HTTPGET, 1)
        case "POST": _ = tk_curl_set_long(h, CURLOPT_POST, 1)
        default: _ = tk_curl_set_str(h, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let body = request.body {
            _ = tk_curl_set_off(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            _ = body.withUnsafeBytes { tk_curl_set_ptr(h, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress ?? UnsafeRawPointer(errorBuffer))) }
        }
        // "Expect:" turns off libcurl's 100-continue round trip for large bodies.
        var list: UnsafeMutablePointer<curl_slist>? = tk_curl_slist_append(nil, "Expect:")
        for (k, v) in request.headers.sorted(by: { $0.key < $1.key }) {
            let clean = v.filter { $0 != "\r" && $0 != "\n" }
            list = tk_curl_slist_append(list, clean.isEmpty ? "\(k);" : "\(k): \(clean)")
        }
        headerList = list
        _ = tk_curl_set_slist(h, CURLOPT_HTTPHEADER, list)
        _ = tk_curl_set_ptr(h, CURLOPT_HEADERDATA, me)
        _ = tk_curl_set_data_cb(h, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            guard let data, let user else { return 0 }
            let n = size * count
            Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
                .headerLine(UnsafeRawBufferPointer(start: data, count: n))
            return n
        }
        _ = tk_curl_set_ptr(h, CURLOPT_WRITEDATA, me)
        _ = tk_curl_set_data_cb(h, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            guard let data, let user else { return 0 }
            let n = size * count
            Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
                .body(UnsafeRawBufferPointer(start: data, count: n))
            return n
        }
        return h
    }

    /// One header line (with its CRLF); the empty line ends a block of headers.
    private func headerLine(_ raw: UnsafeRawBufferPointer) {
        guard !gotHead else { return }   // trailers
        var line = String(decoding: raw, as: UTF8.self)
        while line.last == "\n" || line.last == "\r" || line.last == "\r\n" { line.removeLast() }
        if line.hasPrefix("HTTP/") { headers = [:]; return }
        if line.isEmpty {
            guard let easy else { return }
            let status = tk_curl_response_code(easy)
            // An interim reply (100 Continue) or a redirect libcurl follows: the real head comes later.
            if status < 200 || ((300..<400).contains(status) && headers["location"] != nil) { headers = [:]; return }
            emitHead(status: Int(status))
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers[name] = headers[name].map { "\($0), \(value)" } ?? value
    }

    private func emitHead(status: Int) {
        gotHead = true
        lastActivity = .now
        if !finished { continuation.yield(.head(HTTPHead(status: status, headers: headers))) }
    }

    private func body(_ raw: UnsafeRawBufferPointer) {
        if !gotHead, let easy { emitHead(status: Int(tk_curl_response_code(easy))) }
        lastActivity = .now
        if !finished && !raw.isEmpty { continuation.yield(.bytes(Array(raw))) }
    }

    /// What a libcurl failure means to the providers.
    func failure(_ code: CURLcode) -> HTTPTransportError {
        let detail = String(cString: errorBuffer)
        let why = detail.isEmpty ? String(cString: tk_curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return gotHead ? .connectionLost("timed out") : .timedOut(timeouts.firstByte)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SSL_CONNECT_ERROR,
             CURLE_PEER_FAILED_VERIFICATION, CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CACERT_BADFILE:
            return .cannotConnect(why)
        default:
            return gotHead ? .connectionLost(why) : .cannotConnect(why)
        }
    }

    /// Finishes the stream (nil: cleanly) and frees the handle.
    func finish(_ failure: HTTPTransportError?) {
        guard !finished else { return }
        if failure == nil, !gotHead, let easy { emitHead(status: Int(tk_curl_response_code(easy))) }
        finished = true
        if let failure { continuation.finish(throwing: failure) } else { continuation.finish() }
        if let easy { tk_curl_easy_cleanup(easy); self.easy = nil }
        if let headerList { tk_curl_slist_free_all(headerList); self.headerList = nil }
    }
}
