import CatalogCore
import Crypto
import Foundation

/// The two forms of one account's token, as the server makes them (DESIGN.md "Accounts"): both come from one
/// digest, HMAC-SHA-256 of the account under the app's secret, so a token cannot be found by hashing a list of
/// user names, the same account always gets the same tokens, and two apps give one account unrelated tokens.
///
/// - ``applicationUsername``: the digest in the seed's layout (`hashedValueForAccountName`): 64 lowercase hex
///   digits, a dash after every 4 bytes (8 groups of 8 digits), what an app sets on `SKMutablePayment`.
/// - ``appAccountToken``: a UUID made from the digest's first 16 bytes with the RFC 4122 version (4) and variant
///   (`10`) bits set, what an app passes to StoreKit 2's `.appAccountToken(_:)`. It is also the account's
///   ``AccountToken/accountKey``, which ties the two forms to one account in the ledger.
public struct AccountTokens: Sendable, Hashable {
    public let applicationUsername: String
    public let appAccountToken: UUID

    /// The tokens of `digest` (32 bytes).
    public init(digest: [UInt8]) {
        precondition(digest.count == 32, "an account token is made from a SHA-256 digest")
        applicationUsername = Self.applicationUsernameLayout(digest)
        appAccountToken = Self.uuid(fromLeading: digest)
    }

    /// The tokens of `account` under the app's `secret`.
    public static func derive(for account: AccountName, under secret: AccountTokenSecret) -> AccountTokens {
        let key = SymmetricKey(data: secret.bytes)
        let code = HMAC<SHA256>.authenticationCode(for: Data(account.text.utf8), using: key)
        return AccountTokens(digest: Array(code))
    }

    /// `appAccountToken` as StoreKit prints a UUID's text, in lowercase (the case Apple writes it in and the ledger
    /// keeps).
    public var appAccountTokenText: String { appAccountToken.lowercaseText }

    /// The seed's layout of a digest: lowercase hex, a dash before every 4 bytes but the first.
    public static func applicationUsernameLayout(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2 + digest.count / 4)
        for (index, byte) in digest.enumerated() {
            if index != 0 && index % 4 == 0 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A UUID from the first 16 of `bytes`, version 4 and RFC 4122's variant: the six bits that say so are set,
    /// the other 122 are the digest's. StoreKit and every UUID parser accept it as any random UUID.
    public static func uuid(fromLeading bytes: [UInt8]) -> UUID {
        precondition(bytes.count >= 16, "a UUID needs 16 bytes")
        var b = Array(bytes.prefix(16))
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
