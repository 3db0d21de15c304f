import CatalogCore
import Crypto
import Foundation

/// The signature of a webhook as the Standard Webhooks specification defines it: `v1,` and the base64 of
/// HMAC-SHA-256, keyed with the secret's bytes, of `id.timestamp.body`. A receiver computes the same over what it
/// received and compares (docs/events.md shows it in Swift and Python).
public enum WebhookSignature {
    /// The `webhook-signature` header's value for a message `id` sent at `timestamp` (Unix seconds) with `body`.
    public static func sign(id: String, timestamp: Int64, body: some Collection<UInt8>, secret: WebhookSecret) -> String {
        var message: [UInt8] = []
        message.reserveCapacity(id.utf8.count + 22 + body.count)
        message.append(contentsOf: id.utf8)
        message.append(UInt8(ascii: "."))
        message.append(contentsOf: String(timestamp).utf8)
        message.append(UInt8(ascii: "."))
        message.append(contentsOf: body)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret.bytes))
        return "v1," + Data(code).base64EncodedString()
    }
}
