public import CZeroMQ
