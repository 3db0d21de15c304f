import PurchaseCore
import Testing

@Suite struct AppStoreEnvironmentTests {
    @Test func namesAreApples() {
        #expect(AppStoreEnvironment(rawValue: "Sandbox") == .sandbox)
        #expect(AppStoreEnvironment(rawValue: "sandbox") == nil)
    }
}
