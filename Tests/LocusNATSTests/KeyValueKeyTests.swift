import Testing
@testable import LocusNATS

/// Key-value keys allow only `[-/_=.A-Za-z0-9]` and split at `.`: any id becomes one token
/// and comes back unchanged (`NATSKeyValueBucket.token`).
struct KeyValueKeyTests {
    @Test func plainIDsAreUnchanged() {
        #expect(NATSKeyValueBucket.token("car_1-A") == "car_1-A")
    }

    @Test func everyOtherByteIsEscaped() {
        #expect(NATSKeyValueBucket.token("car.1") == "car=2E1")
        #expect(NATSKeyValueBucket.token("a=b/c d") == "a=3Db=2Fc=20d")
        #expect(NATSKeyValueBucket.token("") == "=")
    }

    @Test func tokensRoundTrip() {
        for text in ["car.1", "a=b/c d", "", "dévice*>%", "x=41"] {
            #expect(NATSKeyValueBucket.text(ofToken: NATSKeyValueBucket.token(text)) == text, "\(text)")
        }
    }

    @Test func brokenTokensAreRefused() {
        #expect(NATSKeyValueBucket.text(ofToken: "a=4") == nil)
        #expect(NATSKeyValueBucket.text(ofToken: "a=ZZ") == nil)
    }
}
