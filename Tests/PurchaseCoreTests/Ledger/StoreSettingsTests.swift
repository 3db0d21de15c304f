import CatalogCore
import PurchaseCore
import Testing

@Suite("Store settings")
struct StoreSettingsTests {
    static let secret = "0123456789abcdef0123456789abcdef"

    @Test("a replacement takes defaults for what it leaves out, but keeps the secret unless replaced or cleared")
    func replacement() throws {
        let configured = try StoreSettings.defaults.replaced(by: StoreSettingsUpdate(
            appAppleId: 42, sharedSecret: AppStoreSharedSecret(Self.secret), environments: [.production],
            acceptXcode: true))
        #expect(configured.appAppleId == 42 && configured.environments == [.production] && configured.acceptXcode)
        #expect(configured.sharedSecret?.text == Self.secret && configured.version == 1)
        let plain = try configured.replaced(by: StoreSettingsUpdate())
        #expect(plain.appAppleId == nil && plain.environments == [.production, .sandbox] && !plain.acceptXcode)
        #expect(plain.sharedSecret?.text == Self.secret && plain.version == 2)
        #expect(try plain.replaced(by: StoreSettingsUpdate(clearSharedSecret: true)).sharedSecret == nil)
        #expect(plain.accepts(.sandbox) && !plain.accepts(.xcode) && configured.accepts(.xcode))
    }

    @Test("bad input is refused with every field named")
    func refusals() {
        #expect(throws: CatalogError.self) {
            try StoreSettings.defaults.replaced(by: StoreSettingsUpdate(sharedSecret: AppStoreSharedSecret("has space"),
                                                                        clearSharedSecret: true))
        }
        do {
            _ = try StoreSettings.defaults.replaced(by: StoreSettingsUpdate(
                appAppleId: 9_007_199_254_740_992, sharedSecret: AppStoreSharedSecret(""), environments: [.xcode, .production, .production]))
            Issue.record("accepted")
            return
        } catch {
            guard case .validationFailed(let problems) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(Set(problems.map(\.field)) == ["appAppleId", "sharedSecret", "environments[0]", "environments"])
        }
    }

    @Test("history and descriptions name the secret as set, changed or removed, never its value")
    func secretNeverShown() throws {
        let set = try StoreSettings.defaults.replaced(by: StoreSettingsUpdate(sharedSecret: AppStoreSharedSecret(Self.secret)))
        let changed = try set.replaced(by: StoreSettingsUpdate(sharedSecret: AppStoreSharedSecret("other")))
        let removed = try changed.replaced(by: StoreSettingsUpdate(clearSharedSecret: true))
        let histories = [set.historyChanges(from: .defaults), changed.historyChanges(from: set),
                         removed.historyChanges(from: changed)]
        #expect(histories.map { $0.first { $0.field == "sharedSecret" }?.new } == [.string("set"), .string("changed"),
                                                                                 .string("removed")])
        for text in ["\(set)", String(reflecting: set), "\(histories)", "\(Mirror(reflecting: set).children.map(\.value))"] {
            #expect(!text.contains(Self.secret) && !text.contains("other"), "\(text)")
        }
    }
}

@Suite("Store settings: the manyStoreAccounts signal")
struct ManyStoreAccountsSettingsTests {
    @Test("N and the window default to 3 and 30 days, are replaced, and are refused outside their ranges")
    func limits() throws {
        #expect(StoreSettings.defaults.manyStoreAccountsLimit == 3 && StoreSettings.defaults.manyStoreAccountsWindowHours == 720)
        let set = try StoreSettings.defaults.replaced(by: StoreSettingsUpdate(manyStoreAccountsLimit: 5,
                                                                              manyStoreAccountsWindowHours: 24))
        #expect(set.manyStoreAccountsLimit == 5 && set.manyStoreAccountsWindowHours == 24)
        #expect(set.historyChanges(from: .defaults).map(\.field) == ["manyStoreAccountsLimit", "manyStoreAccountsWindowHours"])
        let back = try set.replaced(by: StoreSettingsUpdate())
        #expect(back.manyStoreAccountsLimit == 3 && back.manyStoreAccountsWindowHours == 720)
        do {
            _ = try StoreSettings.defaults.replaced(by: StoreSettingsUpdate(manyStoreAccountsLimit: 0,
                                                                            manyStoreAccountsWindowHours: 8785))
            Issue.record("accepted")
        } catch {
            guard case .validationFailed(let problems) = error else { Issue.record("\(error)"); return }
            #expect(problems.map(\.field) == ["manyStoreAccountsLimit", "manyStoreAccountsWindowHours"])
        }
    }
}
