// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "tk-agent",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tk-agent", targets: ["tk-agent"]),
        .executable(name: "tk-agent-core", targets: ["tk-agent-core"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(name: "CInotify", path: "Sources/CInotify"),
        .systemLibrary(name: "CICURegex", path: "Sources/CICURegex"),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto"),
        // libcurl, loaded on first use (dlopen): most commands never make a request, and linking it
        // made every process start ~10 ms slower (see Sources/CCurl/include/tk_curl.h).
        .target(name: "CCurl", path: "Sources/CCurl", linkerSettings: [.linkedLibrary("dl")]),
        // The part-of-speech table, laid out at build time (written by scripts/gen_pos_table).
        .target(name: "CPOSTable", path: "Sources/CPOSTable"),
        // int8 dot products with the processor's vector instructions (chosen at run time).
        .target(name: "CVectorMath", path: "Sources/CVectorMath"),
        .systemLibrary(name: "CHunspell", path: "Sources/CHunspell"),
        .systemLibrary(name: "CMark", path: "Sources/CMark", pkgConfig: "libcmark-gfm"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .systemLibrary(name: "CSystem", path: "Sources/CSystem"),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // Search without Foundation: the quick `tk-agent search` path and TKCore share it.
        .target(name: "TKSearch", dependencies: ["CSQLite"]),
        .target(
            name: "TKCore",
            dependencies: [
                "CCrypto",
                "CCurl",
                "CInotify",
                "CPOSTable",
                "CVectorMath",
                "CHunspell",
                "CICURegex",
                "CMark",
                "CSystem",
                "CZlib",
                "TKSearch",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Advisors/Resources")],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
            ]
        ),
        // `tk-agent`: answers `search` itself, execs `tk-agent-core` for everything else. The
        // standard library is linked statically so that nothing but libc, libstdc++ and SQLite load.
        .executableTarget(
            name: "tk-agent",
            dependencies: ["TKSearch"],
            linkerSettings: [.unsafeFlags(["-static-stdlib"])]
        ),
        .executableTarget(
            name: "tk-agent-core",
            dependencies: [
                "TKCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "TKCoreTests",
            dependencies: ["TKCore", "TKSearch", "CVectorMath"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
