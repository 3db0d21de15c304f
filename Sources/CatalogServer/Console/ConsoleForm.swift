import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The fields of an `application/x-www-form-urlencoded` body (what a browser's form posts), or of a query.
struct ConsoleForm: Sendable {
    /// The largest form the console takes: its forms hold a few short fields.
    static let limit = 64 * 1024

    private(set) var fields: [(name: String, value: String)] = []

    /// The first value of `name`, if the form has it.
    subscript(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// The first value of `name`, trimmed, or `nil` when it is absent or blank (an empty filter is no filter).
    func text(_ name: String) -> String? {
        guard let value = self[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    /// Parses `text`; a pair whose percent-encoding is not UTF-8 is dropped.
    init(_ text: Substring) {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? {
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { continue }
            fields.append((name, value))
        }
    }

    /// The fields as a form body again, for the handler after a middleware has read them.
    var encoded: String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return fields.map {
            "\($0.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }

    /// The query of `request`'s URL.
    static func query(of request: Request) -> ConsoleForm {
        ConsoleForm(Substring(request.uri.query ?? ""))
    }

    /// The body of a POST: a form of at most ``limit`` bytes, else 413; another media type, 415.
    static func body(of request: Request) async throws -> ConsoleForm {
        let type = request.headers[.contentType]?.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/x-www-form-urlencoded" else {
            throw Problem("unsupported-media-type", .unsupportedMediaType, "Send the form as a browser does",
                          detail: "the console's forms are application/x-www-form-urlencoded")
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw Problem.payloadTooLarge(limit: limit)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw Problem.payloadTooLarge(limit: limit)
        }
        guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
            throw Problem("bad-request", .badRequest, "The form could not be read", detail: "a form must be UTF-8")
        }
        return ConsoleForm(Substring(text))
    }
}

extension Request {
    /// Whether the browser reached the server over https: the request's own scheme, or, when the operator
    /// trusts the proxy in front (``ConsoleSettings/trustForwardedProto``), its `X-Forwarded-Proto`.
    func isHTTPS(trustingForwardedProto trust: Bool) -> Bool {
        if uri.scheme?.rawValue == "https" || head.scheme == "https" { return true }
        guard trust, let proto = headers[HTTPField.Name("X-Forwarded-Proto")!] else { return false }
        return proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// Whether a POST may come from the console's own pages, as far as the browser tells: a form of another site
    /// (`Sec-Fetch-Site` other than same-origin, which every current browser sends) or of an opaque origin
    /// (`Origin: null`) is refused before its CSRF token is even read. `Origin` is not compared with `Host`,
    /// which a reverse proxy may rewrite. Clients that send neither header are judged by the token alone.
    var isSameOriginPost: Bool {
        if let site = headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin" { return false }
        return headers[.origin] != "null"
    }
}
