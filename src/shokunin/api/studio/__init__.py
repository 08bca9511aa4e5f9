"""The Studio face (seed 002): REST and Socket.IO in the seed's wire forms."""
