import Testing
@testable import LocusNATS

/// A durable consumer's deliveries handed on in stream order with nothing skipped
/// (`DeliveryOrder`): a lost delivery stops the flow until the servers deliver again.
struct DeliveryOrderTests {
    @Test func consecutiveDeliveriesAreHandedOn() {
        var order = DeliveryOrder()
        #expect(order.judge(delivery: 7, stream: 100) == .next, "the first after a start is taken as it is")
        #expect(order.judge(delivery: 8, stream: 104) == .next, "stream sequences of a filtered consumer may jump")
        #expect(order.handedThrough == 104)
        #expect(order.gaps == 0)
    }

    @Test func aRepeatOfWorkHandedOnIsDropped() {
        var order = DeliveryOrder()
        _ = order.judge(delivery: 1, stream: 10)
        _ = order.judge(delivery: 2, stream: 11)
        #expect(order.judge(delivery: 3, stream: 10) == .repeated, "re-delivered after the acknowledgement wait")
        #expect(order.judge(delivery: 4, stream: 12) == .next, "the repeat's delivery counts: no gap")
    }

    @Test func afterALostDeliveryNothingPassesUntilResumed() {
        var order = DeliveryOrder()
        _ = order.judge(delivery: 1, stream: 10)
        // Deliveries 2 and 3 (stream 11, 12) were lost on the way.
        #expect(order.judge(delivery: 4, stream: 13) == .afterGap)
        #expect(order.judge(delivery: 5, stream: 14) == .afterGap, "still overtaking the lost ones")
        #expect(order.stopped)
        #expect(order.gaps == 1)
        #expect(order.handedThrough == 10, "nothing past the gap is acknowledged")
        // The receiver waits, subscribes again; the servers deliver the lost ones first.
        order.resume()
        #expect(order.judge(delivery: 9, stream: 11) == .next)
        #expect(order.judge(delivery: 10, stream: 12) == .next)
        #expect(order.judge(delivery: 11, stream: 13) == .next)
        #expect(order.judge(delivery: 12, stream: 14) == .next)
        #expect(order.judge(delivery: 13, stream: 15) == .next)
        #expect(order.gaps == 1)
    }

    @Test func aConsumerLeaderThatForgotDeliveriesStartsAgainWithoutAGap() {
        var order = DeliveryOrder()
        _ = order.judge(delivery: 50, stream: 500)
        #expect(order.judge(delivery: 48, stream: 499) == .repeated)
        #expect(order.judge(delivery: 49, stream: 500) == .repeated)
        #expect(order.judge(delivery: 50, stream: 501) == .next)
        #expect(order.gaps == 0)
    }

    @Test func afterResumingRepeatsOfWorkHandedOnAreStillDropped() {
        var order = DeliveryOrder()
        _ = order.judge(delivery: 1, stream: 10)
        _ = order.judge(delivery: 3, stream: 12)
        order.resume()
        #expect(order.judge(delivery: 7, stream: 10) == .repeated, "handed on before the gap, not yet acknowledged")
        #expect(order.judge(delivery: 8, stream: 11) == .next)
    }
}
