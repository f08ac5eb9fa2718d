module example.com/shop
