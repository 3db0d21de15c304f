import CatalogCore
import Foundation

extension AccountToken {
    /// The account this token stands for, whichever of its two forms a purchase carried: a UUID is its own key;
    /// an `applicationUsername` stands for the UUID made from its first 16 bytes as ``AccountTokens`` makes
    /// `appAccountToken` (version 4, RFC 4122 variant). So the two forms the server makes from one digest are one
    /// account in the ledger, the lookups and the signals, and so are an app's own pair made by the same rule.
    /// `iap_account_key` (sql) is the same rule in SQL.
    public var accountKey: UUID {
        if let uuid = UUID(text: text) { return uuid }
        let hex = Array(text.utf8.filter { $0 != UInt8(ascii: "-") }.prefix(32))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var index = 0
        while index + 1 < hex.count {
            bytes.append(Self.nibble(hex[index]) << 4 | Self.nibble(hex[index + 1]))
            index += 2
        }
        return AccountTokens.uuid(fromLeading: bytes)
    }

    /// The key's text, lowercase: what answers and the ledger's `account_key` say.
    public var accountKeyText: String { accountKey.lowercaseText }

    /// Whether this token is the seed's `applicationUsername` layout (else it is a UUID).
    public var isApplicationUsername: Bool { text.utf8.count == 71 }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit - UInt8(ascii: "a") + 10
    }
}
