import Foundation
import PostgresNIO

/// Where the database is, read from a `postgres://user:password@host:port/database` URL (`DATABASE_URL`).
///
/// `sslmode=disable|prefer|require` is honoured (default `prefer`, as libpq does); `host=/path` in the query
/// selects a Unix socket directory, as libpq writes it.
public struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int
    public private(set) var username: String
    public private(set) var password: String?
    public private(set) var database: String
    public let sslMode: String
    public let socketDirectory: String?

    /// Reads `text`, or throws a message naming what is wrong with it.
    public init(_ text: String) throws(DatabaseURLError) {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else { throw DatabaseURLError("DATABASE_URL must look like postgres://user@host:port/database") }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                               uniquingKeysWith: { _, last in last })
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        username = components.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        password = components.password.flatMap { $0.removingPercentEncoding }
        let path = components.path.drop(while: { $0 == "/" })
        database = path.isEmpty ? username : String(path)
        sslMode = query["sslmode"] ?? "prefer"
        socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(sslMode) else {
            throw DatabaseURLError("DATABASE_URL has an unknown sslmode \(sslMode)")
        }
    }

    /// The same server and credentials, another database (tests make one per suite).
    public func with(database: String) -> DatabaseURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The same server and database, as another role (without a password: local trust, or a certificate).
    public func with(username: String) -> DatabaseURL {
        var copy = self
        copy.username = username
        copy.password = nil
        return copy
    }

    /// The PostgresNIO configuration for this URL.
    public func configuration() -> PostgresClient.Configuration {
        if let socketPath {
            return PostgresClient.Configuration(unixSocketPath: socketPath, username: username, password: password,
                                                database: database)
        }
        let tls: PostgresClient.Configuration.TLS = switch tlsUse {
        case .none: .disable
        case .preferred: .prefer(.makeClientConfiguration())
        case .required: .require(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(host: host, port: port, username: username, password: password,
                                            database: database, tls: tls)
    }

    /// The configuration of one PostgresNIO connection to this URL, for ``ConnectionPool``: the same server,
    /// credentials and TLS mode as ``configuration()``.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if let socketPath {
            return PostgresConnection.Configuration(unixSocketPath: socketPath, username: username,
                                                    password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS = switch tlsUse {
        case .none: .disable
        case .preferred: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .required: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(host: host, port: port, username: username, password: password,
                                                database: database, tls: tls)
    }

    /// The server's Unix socket, when the URL names a socket directory.
    private var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// What `sslmode` asks of TLS: `disable` and `allow` connect without it, `prefer` uses it when the server
    /// offers it, anything else requires it.
    private enum TLSUse { case none, preferred, required }

    private var tlsUse: TLSUse {
        switch sslMode {
        case "disable", "allow": .none
        case "prefer": .preferred
        default: .required
        }
    }

    /// The URL without its password, for logs.
    public var description: String { "postgres://\(username)@\(host):\(port)/\(database)" }
}

/// A DATABASE_URL that cannot be used, with why.
public struct DatabaseURLError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
