import Testing
@testable import TKCore

/// libcurl is loaded on the first request (`tk_curl.h`), not linked: the outcome of loading it.
@Suite("libcurl loaded on first use")
struct CurlLoadingTests {
    @Test func theSystemsLibcurlLoads() {
        #expect(CurlClient.loadFailure(library: nil) == nil)
    }

    @Test func aMissingLibraryIsOneActionableError() {
        let failure = CurlClient.loadFailure(library: "libcurl-tk-test-missing.so.4")
        guard case .cannotConnect(let why) = failure else {
            Issue.record("expected cannotConnect, got \(String(describing: failure))")
            return
        }
        #expect(why.contains("libcurl-tk-test-missing.so.4"))
        #expect(why.hasSuffix("install the libcurl4 package"))
    }

    @Test func aLibraryWithoutCurlsFunctionsIsRefused() {
        // libz is a real shared library that has none of libcurl's functions.
        let failure = CurlClient.loadFailure(library: "libz.so.1")
        guard case .cannotConnect(let why) = failure else {
            Issue.record("expected cannotConnect, got \(String(describing: failure))")
            return
        }
        #expect(why.contains("has no curl_global_init"))
    }
}
