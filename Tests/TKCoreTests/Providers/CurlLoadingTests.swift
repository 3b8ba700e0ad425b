import Testing
@testable import TKCore

/// libcurl is loaded on the first request (`tk_curl.h`), not linked: the outcome of loading it.
@Suite("libcurl loaded on first use")
struct CurlLoadingTests {
    /// Why loading `library` failed (nil when it loaded, or failed otherwise than `cannotConnect`).
    func reason(_ library: String) -> String? {
        guard case .cannotConnect(let why) = CurlClient.loadFailure(library: library) else { return nil }
        return why
    }

    @Test func theSystemsLibcurlLoads() {
        #expect(CurlClient.loadFailure(library: nil) == nil)
    }

    @Test func aMissingLibraryIsOneActionableError() throws {
        let why = try #require(reason("libcurl-tk-test-missing.so.4"))
        #expect(why.contains("libcurl-tk-test-missing.so.4"))
        #expect(why.hasSuffix("install the libcurl4 package"))
    }

    @Test func aLibraryWithoutCurlsFunctionsIsRefused() throws {
        // libz is a real shared library that has none of libcurl's functions.
        let why = try #require(reason("libz.so.1"))
        #expect(why.contains("has no curl_global_init"))
    }
}
