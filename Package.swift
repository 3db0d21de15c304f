// swift-tools-version: 6.1
import PackageDescription

/// Our own targets build without warnings under Swift 6 strict concurrency, every one with these settings. The
/// generated OpenAPI code lives in targets of its own, which hold nothing hand-written: the types in
/// `CatalogAPI`, the server's routing in `CatalogAPIServer`, the client in `CatalogClient`.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "iap-catalog",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "iap-server", targets: ["iap-server"]),
        .executable(name: "iap-admin", targets: ["iap-admin"]),
        .executable(name: "appstore-standin", targets: ["appstore-standin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    ],
    targets: [
        .target(name: "CatalogCore", swiftSettings: strict),
        // The pure rules of purchases (docs/architecture.md): signed data, the App Store's payloads and statuses,
        // the retry schedule, the ledger's merge rule, account tokens. No I/O.
        .target(
            name: "PurchaseCore",
            dependencies: [
                "CatalogCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            // Apple Root CA - G3 is embedded in AppleRootCAG3.swift; the file and its sources note stay for people.
            exclude: ["SignedData/AppleRootCA-G3.cer", "SignedData/SOURCES.md"],
            swiftSettings: strict
        ),
        // The outbound calls to the App Store (verifyReceipt), to Apple or to the stand-in alike.
        .target(
            name: "AppStoreClient",
            dependencies: [
                "PurchaseCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The outbound calls to webhook receivers: signed as Standard Webhooks says, to the address judged safe.
        .target(
            name: "WebhookClient",
            dependencies: [
                "CatalogCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The stand-in App Store for tests, the demo and the benchmark; never a dependency of the service.
        .target(
            name: "AppStoreStandIn",
            dependencies: [
                "PurchaseCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "appstore-standin",
            dependencies: [
                "AppStoreStandIn",
                "PurchaseCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Measures and checks the signed-data verifier on the purchases benchmark's data (docs/performance.md).
        .executableTarget(
            name: "purchases-verify",
            dependencies: [
                "AppStoreStandIn",
                "PurchaseCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "bench/purchases-verify",
            exclude: ["run.sh"],
            swiftSettings: strict
        ),
        // The .storekit file format alone: reads and writes Xcode's StoreKit configuration files, no catalog.
        .target(name: "StoreKitConfiguration", swiftSettings: strict),
        // Between StoreKit files and the catalog: import plans checked by CatalogCore's rules, and exports.
        .target(name: "StoreKitMapping", dependencies: ["CatalogCore", "StoreKitConfiguration"], swiftSettings: strict),
        // An app's catalog as a file in the team's repository: the file (YAML, JSON, its schema), reading and writing
        // it with the user's comments kept, and the plan of what applying it does, checked by CatalogCore's rules.
        .target(
            name: "CatalogFiles",
            dependencies: [
                "CatalogCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
            ],
            resources: [.copy("catalog-file.schema.json")],
            swiftSettings: strict
        ),
        .target(
            name: "CatalogStore",
            dependencies: [
                "CatalogCore",
                "PurchaseCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Migrations")],
            swiftSettings: strict
        ),
        // What both ends of the API agree on beyond the generated types: the document itself, its JSON and date
        // encoding (`Configuration.catalog`), how a decoding error is read.
        .target(
            name: "CatalogAPIConventions",
            dependencies: ["CatalogCore", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            // A link to CatalogAPI's document, built into the code (a copied link would point nowhere).
            resources: [.embedInCode("openapi.yaml")],
            swiftSettings: strict
        ),
        .target(
            name: "CatalogAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            // The generated code warns; our own targets stay free of warnings.
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .target(
            name: "CatalogAPIServer",
            dependencies: [
                "CatalogAPI",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            // Generated code only (the server side of openapi.yaml), which warns; our own targets stay free of warnings.
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .target(
            name: "CatalogServer",
            dependencies: [
                "AppStoreClient",
                "CatalogAPI",
                "CatalogAPIConventions",
                "CatalogAPIServer",
                "CatalogCore",
                "CatalogFiles",
                "CatalogStore",
                "PurchaseCore",
                "StoreKitMapping",
                "WebhookClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The console's templates and its one stylesheet (docs/console.md), read from the bundle at start-up.
            resources: [.copy("Console/Templates"), .copy("Console/Static")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "iap-server",
            dependencies: [
                "AppStoreClient",
                "CatalogCore",
                "CatalogServer",
                "CatalogStore",
                "PurchaseCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "CatalogClient",
            dependencies: [
                "CatalogAPI",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            // Generated code only (the client of openapi.yaml), which warns; our own targets stay free of warnings.
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(
            name: "iap-admin",
            dependencies: [
                "CatalogAPI",
                "CatalogAPIConventions",
                "CatalogClient",
                "CatalogFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "CatalogTestSupport",
            dependencies: [
                "CatalogCore",
                "CatalogStore",
                "PurchaseCore",
                "StoreKitConfiguration",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/CatalogTestSupport",
            swiftSettings: strict
        ),
        .testTarget(name: "CatalogCoreTests", dependencies: ["CatalogCore"], swiftSettings: strict),
        .testTarget(
            name: "PurchaseCoreTests",
            dependencies: [
                "AppStoreStandIn",
                "CatalogCore",
                "PurchaseCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AppStoreClientTests",
            dependencies: [
                "AppStoreClient",
                "AppStoreStandIn",
                "PurchaseCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "StoreKitConfigurationTests",
            dependencies: ["CatalogTestSupport", "StoreKitConfiguration"],
            // The fixtures are read from the repository by CatalogTestSupport's StoreKitFixture, as other suites read them.
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(name: "CatalogFilesTests", dependencies: ["CatalogCore", "CatalogFiles"], swiftSettings: strict),
        .testTarget(
            name: "StoreKitMappingTests",
            dependencies: ["CatalogCore", "CatalogTestSupport", "StoreKitConfiguration", "StoreKitMapping"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CatalogStoreTests",
            dependencies: [
                "CatalogCore",
                "CatalogStore",
                "CatalogTestSupport",
                "PurchaseCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CatalogServerTests",
            dependencies: [
                "AppStoreClient",
                "AppStoreStandIn",
                "CatalogAPI",
                "CatalogAPIConventions",
                "CatalogCore",
                "CatalogFiles",
                "CatalogServer",
                "CatalogStore",
                "CatalogTestSupport",
                "PurchaseCore",
                "StoreKitConfiguration",
                "WebhookClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AdminCLITests",
            dependencies: [
                "AppStoreStandIn",
                "CatalogCore",
                "CatalogServer",
                "CatalogStore",
                "CatalogTestSupport",
                "PurchaseCore",
                "StoreKitConfiguration",
                "iap-admin",
                // Not imported: the shared secret's test runs its binary, which this makes SwiftPM build first.
                "iap-server",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Tests that start server processes and measure time: scripts/test runs them after the others,
        // alone, so that they do not share the machine with every other suite running in parallel.
        .testTarget(
            name: "ProcessTests",
            dependencies: [
                "AppStoreStandIn",
                "CatalogAPI",
                "CatalogAPIConventions",
                "CatalogCore",
                "CatalogStore",
                "CatalogTestSupport",
                "PurchaseCore",
                // Not imported: the process tests run their binaries (the purchase walkthrough all three), which
                // this makes SwiftPM build first.
                "iap-server",
                "iap-admin",
                "appstore-standin",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: strict
        ),
    ]
)
