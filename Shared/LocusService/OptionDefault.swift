/// A default as `--help` prints it, taken from the configuration struct that holds it, so each
/// default is written once: `default: OptionDefault.text(GeofenceConfiguration().debounceSeconds)`
/// in the spec, `?? configuration.debounceSeconds` where the option is read.
public enum OptionDefault {
    /// Whole numbers without a fraction (`100`, not `100.0`); others as Swift prints them.
    public static func text(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    public static func text(_ value: some BinaryInteger) -> String { String(value) }
}
