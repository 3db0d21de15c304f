import CatalogCore
import HummingbirdCore

/// The identifier route's URL and caching rules, shared by the fast path and the generated handler.
enum IdentifierRoute {
    /// The route's path around the bundle id, as the bytes it is matched against.
    private static let prefixBytes = Array("/v1/apps/".utf8)
    private static let suffixBytes = Array("/product-identifiers".utf8)
    /// The route as metrics name it.
    static let pattern = "/v1/apps/{bundleId}/product-identifiers"
    /// Clients may keep the answer but must revalidate it (a cheap 304): what is on sale changes at once.
    static let cacheControl = "no-cache"

    /// The bundle id and type filter of a plain identifier request, or `nil` for anything else.
    static func match(_ uri: URI) -> (Substring, PurchaseType?)? {
        match(path: Substring(uri.path), query: uri.query.map { Substring($0) })
    }

    /// The same, from the request line's target as it was sent (`/v1/apps/…/product-identifiers?type=…`).
    /// A fragment, never sent by clients, is left to the router.
    static func match(target: String) -> (Substring, PurchaseType?)? {
        let bytes = target.utf8
        guard !bytes.contains(UInt8(ascii: "#")) else { return nil }
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return match(path: target[...], query: nil) }
        return match(path: target[..<mark], query: target[target.utf8.index(after: mark)...])
    }

    /// Whether `path` is the route's, whatever its bundle id and query: anyone may ask it, and an unusual
    /// request (a percent-encoded path, an unknown type) is answered by the generated handler, not refused 401.
    static func isRoute(path: String) -> Bool {
        bundleID(in: path[...]) != nil
    }

    private static func match(path: Substring, query: Substring?) -> (Substring, PurchaseType?)? {
        guard let bundleID = bundleID(in: path), !bundleID.utf8.contains(UInt8(ascii: "%")) else { return nil }
        guard let query, !query.isEmpty else { return (bundleID, nil) }
        guard query.hasPrefix("type="), let type = PurchaseType(rawValue: String(query.dropFirst(5))) else { return nil }
        return (bundleID, type)
    }

    /// The bundle id segment of the route's path, as sent, or `nil` for another path.
    private static func bundleID(in path: Substring) -> Substring? {
        // Byte comparisons over the path's UTF-8 in place: this runs on every request (generic collection
        // walks here were 6 % of the server's CPU on the benchmark's typical app), and the route is plain ASCII.
        let bytes = path.utf8
        guard bytes.withContiguousStorageIfAvailable(isRoute) ?? Array(bytes).withUnsafeBufferPointer(isRoute)
        else { return nil }
        return path[bytes.index(bytes.startIndex, offsetBy: prefixBytes.count)
                    ..< bytes.index(bytes.endIndex, offsetBy: -suffixBytes.count)]
    }

    /// Whether `path` is the prefix, a segment without `/`, and the suffix.
    private static func isRoute(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        let end = path.count - suffixBytes.count
        return path.count > prefixBytes.count + suffixBytes.count
            && UnsafeBufferPointer(rebasing: path[..<prefixBytes.count]).elementsEqual(prefixBytes)
            && UnsafeBufferPointer(rebasing: path[end...]).elementsEqual(suffixBytes)
            && !UnsafeBufferPointer(rebasing: path[prefixBytes.count..<end]).contains(UInt8(ascii: "/"))
    }

    /// `If-None-Match` compares weakly: `*`, or any listed tag equal to ours with or without `W/`.
    static func matches(_ ifNoneMatch: String, _ eTag: String) -> Bool {
        if ifNoneMatch == eTag { return true }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            var tag = candidate.drop(while: { $0 == " " })
            while tag.last == " " { tag = tag.dropLast() }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            return tag == "*" || tag == eTag
        }
    }
}
