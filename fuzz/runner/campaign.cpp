namespace cp::fuzz {}
