import AppStoreClient
import Testing

@Suite struct AppStoreClientPlaceholderTests {
    @Test func moduleLinks() {
        _ = AppStoreClientModule.self
    }
}
