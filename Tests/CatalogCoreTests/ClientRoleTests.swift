import CatalogCore
import Testing

/// The `client` role (DESIGN.md "Roles"): a key shipped inside a client app, so treated as public.
@Suite("Client role")
struct ClientRoleTests {
    @Test("a client may submit purchases and read its own submissions, and nothing else")
    func permissions() {
        #expect(KeyRole.client.permissions == [.submitPurchases, .readOwnSubmissions])
        for permission in Permission.allCases where ![.submitPurchases, .readOwnSubmissions].contains(permission) {
            #expect(!KeyRole.client.may(permission), "\(permission)")
        }
        for action in ReviewAction.allCases {
            #expect(!KeyRole.client.may(action), "\(action)")
        }
    }

    @Test("purchases: developers read and retry, auditors read, only admins manage store settings")
    func purchasePermissions() {
        #expect(KeyRole.developer.may(.readPurchases) && KeyRole.developer.may(.retryPurchases))
        #expect(KeyRole.auditor.may(.readPurchases) && !KeyRole.auditor.may(.retryPurchases))
        #expect(!KeyRole.reviewer.may(.readPurchases))
        for role in KeyRole.allCases {
            #expect(role.may(.manageStoreSettings) == (role == .admin), "\(role)")
            #expect(role.may(.submitPurchases) == [.admin, .client].contains(role), "\(role)")
        }
    }

    @Test("a client key is limited to exactly one app", arguments: [
        (nil, false), ([], false), (["com.example.one"], true), (["com.example.one", "com.example.two"], false),
    ] as [([String]?, Bool)])
    func exactlyOneApp(apps: [String]?, valid: Bool) {
        let accepted = (try? APIKey.validate(name: "app", apps: apps, role: .client)) != nil
        #expect(accepted == valid)
        // Other roles may see every app.
        #expect((try? APIKey.validate(name: "app", apps: nil, role: .developer)) != nil)
    }
}
